//! The worktree hooks shipped in share/examples, run as a project would run them: copied into a
//! real repository, trusted, and driven by `git berth add` and `remove` or by hand. Docker is a
//! fake on PATH that records each call, so what the hooks would do to Compose stacks is checked
//! on any machine; where a real `docker compose` exists, it reads the compose file too.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

/// This file's `berth.portRange`: 65300-65399, above the ranges of tests/hooks.rs, tests/ports.rs
/// and tests/seeding.rs and above Linux's ephemeral ports.
const PORTS_FROM: u16 = 65300;

const SETUP: &str = "sh scripts/worktree-stack.sh up";
const TEARDOWN: &str = "sh scripts/worktree-stack.sh down";

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("share/examples")
        .join(name)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A sandbox whose PATH starts with a fake `docker` that appends `<cwd>|<args>` to a log.
struct Docker {
    sandbox: Sandbox,
    bin: PathBuf,
    log: PathBuf,
}

impl Docker {
    fn new() -> Docker {
        use std::os::unix::fs::PermissionsExt as _;
        let sandbox = Sandbox::new();
        let bin = sandbox.root.join("fake-bin");
        let log = sandbox.root.join("docker.log");
        std::fs::create_dir_all(&bin).unwrap();
        let docker = bin.join("docker");
        std::fs::write(
            &docker,
            format!(
                "#!/bin/sh\nprintf '%s|%s\\n' \"$(pwd -P)\" \"$*\" >> {}\n",
                sh_quote(log.to_str().unwrap())
            ),
        )
        .unwrap();
        std::fs::set_permissions(&docker, std::fs::Permissions::from_mode(0o755)).unwrap();
        Docker { sandbox, bin, log }
    }

    /// `cmd` with the sandbox's environment and the fake first on PATH.
    fn env(&self, cmd: &mut Command) {
        self.sandbox.env(cmd);
        let path = std::env::var_os("PATH").unwrap_or_default();
        let dirs = std::iter::once(self.bin.clone()).chain(std::env::split_paths(&path));
        cmd.env("PATH", std::env::join_paths(dirs).unwrap());
    }

    fn berth(&self, dir: &Path, args: &[&str]) -> Output {
        let mut cmd = self.sandbox.berth_command(dir, args);
        self.env(&mut cmd);
        cmd.output().unwrap()
    }

    /// `sh -c script` in `dir` with `vars` set, as a person runs a hook by hand.
    fn sh(&self, dir: &Path, vars: &[(&str, &str)], script: &str) -> Output {
        let mut cmd = Command::new("sh");
        self.env(&mut cmd);
        cmd.current_dir(dir)
            .args(["-c", script])
            .envs(vars.iter().copied());
        cmd.output().unwrap()
    }

    /// Each recorded call as (working directory, arguments).
    fn calls(&self) -> Vec<(PathBuf, String)> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|line| {
                let (cwd, args) = line.split_once('|').unwrap();
                (PathBuf::from(cwd), args.to_owned())
            })
            .collect()
    }
}

/// A repository named `repo` (so Compose's own name for its primary's stack is `repo`) holding
/// the docker-compose example, its `.env` ignored and seeded, the hooks trusted.
fn compose_project(docker: &Docker) -> PathBuf {
    let sandbox = &docker.sandbox;
    let repo = sandbox.repo("repo");
    let copied = Command::new("cp")
        .arg("-a")
        .arg(example("docker-compose").join("."))
        .arg(&repo)
        .status()
        .unwrap();
    assert!(copied.success());
    std::fs::write(repo.join(".gitignore"), "target/\n.env\n").unwrap();
    std::fs::write(repo.join(".worktree-hooks/seed"), ".env\n").unwrap();
    sandbox.commit_all(&repo, "one Compose stack per worktree");
    sandbox.port_range(&repo, PORTS_FROM, 10);
    sandbox.berth_ok(&repo, &["trust"]);
    // The primary's own settings, its project name among them: a worktree must not inherit it.
    std::fs::write(
        repo.join(".env"),
        "COMPOSE_PROJECT_NAME=repo\nSECRET=s3cret\n",
    )
    .unwrap();
    repo
}

fn added(out: &Output) -> PathBuf {
    assert!(out.status.success(), "{}", outputs(out));
    PathBuf::from(stdout(out).trim_end())
}

/// The project a call names with `-p`; a call that names none fails the test.
fn project(args: &str) -> String {
    let words: Vec<&str> = args.split(' ').collect();
    let at = words.iter().position(|w| *w == "-p");
    let at = at.unwrap_or_else(|| panic!("docker {args} names no project"));
    words[at + 1].to_owned()
}

/// `<primary folder>-<8 hex digits of the clone>-wt-<name>`: the clone's part.
fn clone_part<'a>(project: &'a str, primary: &str, name: &str) -> &'a str {
    let clone = project
        .strip_prefix(&format!("{primary}-"))
        .and_then(|rest| rest.strip_suffix(&format!("-wt-{name}")))
        .unwrap_or_else(|| panic!("{project} is not {primary}-<clone>-wt-{name}"));
    assert!(
        clone.len() == 8 && clone.bytes().all(|b| b.is_ascii_hexdigit()),
        "{project}"
    );
    clone
}

#[test]
fn the_examples_hooks_are_what_install_writes_for_its_commands() {
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    let written = sandbox.install(
        &repo,
        &["--setup", SETUP, "--teardown", TEARDOWN, "--ports", "2"],
    );
    assert_eq!(written.len(), 3);
    let shipped = example("docker-compose").join(".worktree-hooks");
    for path in written {
        let name = path.file_name().unwrap();
        let ours = shipped.join(name);
        assert_eq!(read(&ours), read(&path), "{} is stale", ours.display());
        use std::os::unix::fs::PermissionsExt as _;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o111;
        assert_eq!(mode(&ours), mode(&path), "{} mode", ours.display());
    }
}

#[test]
fn each_worktree_gets_its_own_compose_project_and_ports_and_teardown_downs_only_its_own() {
    let docker = Docker::new();
    let repo = compose_project(&docker);
    let a = added(&docker.berth(&repo, &["add", "a"]));
    let b = added(&docker.berth(&repo, &["add", "b"]));

    let calls = docker.calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    let (a_project, b_project) = (project(&calls[0].1), project(&calls[1].1));
    assert_eq!(
        calls[0],
        (a.clone(), format!("compose -p {a_project} up -d"))
    );
    assert_eq!(
        calls[1],
        (b.clone(), format!("compose -p {b_project} up -d"))
    );
    assert_eq!(
        clone_part(&a_project, "repo", "a"),
        clone_part(&b_project, "repo", "b"),
        "one clone, one clone part"
    );
    let (a_port, b_port) = (PORTS_FROM, PORTS_FROM + 10);
    assert_eq!(
        read(&a.join(".env")),
        format!(
            "SECRET=s3cret\nCOMPOSE_PROJECT_NAME={a_project}\nWORKTREE_PORT={a_port}\nDB_PORT={}\n",
            a_port + 1
        ),
        "the seeded .env, with the worktree's own project and ports in place of the primary's"
    );
    assert_eq!(
        read(&b.join(".env")),
        format!(
            "SECRET=s3cret\nCOMPOSE_PROJECT_NAME={b_project}\nWORKTREE_PORT={b_port}\nDB_PORT={}\n",
            b_port + 1
        )
    );
    assert_eq!(
        read(&repo.join(".env")),
        "COMPOSE_PROJECT_NAME=repo\nSECRET=s3cret\n",
        "the primary's .env is its own"
    );

    // Setup again (a retry) leaves the same .env.
    let before = read(&a.join(".env"));
    let out = docker.berth(&repo, &["setup", "a"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert_eq!(read(&a.join(".env")), before);

    let out = docker.berth(&repo, &["remove", "a"]);
    assert!(out.status.success(), "{}", outputs(&out));
    let calls = docker.calls();
    let downs: Vec<_> = calls
        .iter()
        .filter(|(_, args)| args.contains(" down"))
        .collect();
    assert_eq!(downs.len(), 1, "{calls:?}");
    assert_eq!(
        downs[0].1,
        format!("compose -p {a_project} down -v --remove-orphans")
    );
    assert!(
        calls.iter().all(|(_, args)| project(args) != "repo"),
        "a call named the primary's project: {calls:?}"
    );
    assert!(b.join(".env").exists(), "b's stack and checkout stay");

    // By hand, without berth's WORKTREE_PRIMARY, teardown finds the same project setup used.
    let by_hand = docker.sh(&repo, &[("WORKTREE_NAME", "b")], ".worktree-hooks/teardown");
    assert!(by_hand.status.success(), "{}", outputs(&by_hand));
    let last = docker.calls().pop().unwrap();
    assert_eq!(project(&last.1), b_project);
}

#[test]
fn the_hooks_run_by_hand_without_berth_name_the_worktrees_project() {
    let docker = Docker::new();
    let repo = compose_project(&docker);
    let sandbox = &docker.sandbox;
    // The README's "Without the CLI" steps.
    sandbox.git(&repo, &["worktree", "add", "-q", "../Feat-Login"]);
    let wt = repo.parent().unwrap().join("Feat-Login");
    let port = (PORTS_FROM + 50).to_string();
    let by_hand = [
        ("WORKTREE_NAME", "Feat/Login"),
        ("WORKTREE_PORT", port.as_str()),
    ];
    let setup = docker.sh(&wt, &by_hand, ".worktree-hooks/setup");
    assert!(setup.status.success(), "{}", outputs(&setup));
    assert_eq!(
        read(&wt.join(".env")),
        format!(
            "COMPOSE_PROJECT_NAME={}\nWORKTREE_PORT={port}\nDB_PORT={}\n",
            project(&docker.calls()[0].1),
            PORTS_FROM + 51
        )
    );
    let teardown = docker.sh(&repo, &by_hand[..1], ".worktree-hooks/teardown");
    assert!(teardown.status.success(), "{}", outputs(&teardown));
    sandbox.git(&repo, &["worktree", "remove", "--force", "../Feat-Login"]);

    let calls = docker.calls();
    let name = project(&calls[0].1);
    clone_part(&name, "repo", "feat-login");
    let primary = std::fs::canonicalize(&repo).unwrap();
    assert_eq!(
        calls,
        [
            (
                primary.parent().unwrap().join("Feat-Login"),
                format!("compose -p {name} up -d")
            ),
            (
                primary,
                format!("compose -p {name} down -v --remove-orphans")
            ),
        ],
        "a name Compose would refuse is lower-cased, its other characters made '-'"
    );

    // Another clone in a folder of the same name: the same worktree name is another stack.
    let elsewhere = sandbox.root.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    sandbox.git(&elsewhere, &["clone", "-q", repo.to_str().unwrap(), "repo"]);
    let other = docker.sh(
        &elsewhere.join("repo"),
        &by_hand[..1],
        ".worktree-hooks/teardown",
    );
    assert!(other.status.success(), "{}", outputs(&other));
    let other_name = project(&docker.calls()[2].1);
    assert_ne!(
        clone_part(&other_name, "repo", "feat-login"),
        clone_part(&name, "repo", "feat-login")
    );
}

#[test]
fn without_a_worktree_name_or_port_the_hooks_refuse_and_touch_no_stack() {
    let docker = Docker::new();
    let repo = compose_project(&docker);
    let teardown = docker.sh(&repo, &[], ".worktree-hooks/teardown");
    assert!(!teardown.status.success());
    assert!(
        stderr(&teardown).contains("WORKTREE_NAME"),
        "{}",
        outputs(&teardown)
    );
    let setup = docker.sh(&repo, &[("WORKTREE_NAME", "a")], ".worktree-hooks/setup");
    assert!(!setup.status.success());
    assert!(
        stderr(&setup).contains("WORKTREE_PORT"),
        "{}",
        outputs(&setup)
    );
    assert_eq!(docker.calls(), [], "docker was never called");
    assert_eq!(
        read(&repo.join(".env")),
        "COMPOSE_PROJECT_NAME=repo\nSECRET=s3cret\n"
    );
}

/// The real Compose, as `docker compose` or the older `docker-compose`, if this machine has one.
fn real_compose() -> Option<Vec<&'static str>> {
    [vec!["docker", "compose"], vec!["docker-compose"]]
        .into_iter()
        .find(|argv| {
            Command::new(argv[0])
                .args(&argv[1..])
                .arg("version")
                .output()
                .is_ok_and(|out| out.status.success())
        })
}

#[test]
fn real_compose_reads_each_checkouts_own_ports_from_the_compose_file() {
    let Some(compose) = real_compose() else {
        common::skip(
            "docker-compose",
            "no docker compose on this machine: the compose file is checked by the fake",
        );
        return;
    };
    let docker = Docker::new();
    let repo = compose_project(&docker);
    let a = added(&docker.berth(&repo, &["add", "a"]));
    let config = |dir: &Path| {
        // `config` only reads the files; it needs no daemon and pulls nothing.
        let mut cmd = Command::new(compose[0]);
        docker.sandbox.env(&mut cmd);
        let out = cmd
            .args(&compose[1..])
            .arg("config")
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", outputs(&out));
        stdout(&out)
    };
    let (web, db) = (PORTS_FROM.to_string(), (PORTS_FROM + 1).to_string());
    let in_a = config(&a);
    assert!(in_a.contains(&web) && in_a.contains(&db), "{in_a}");
    assert!(!in_a.contains("8080"), "{in_a}");
    let in_primary = config(&repo);
    assert!(in_primary.contains("8080"), "{in_primary}");
    assert!(!in_primary.contains(&web), "{in_primary}");
}
