//! Issue 25's classes ("the guard, round 4"), each a fixture file `round4-<class>.txt` of its
//! spellings, judged by the real binary from the agent's worktree and from the primary after
//! `cd <worktree> &&`, and really run: what the guard lets through must leave the primary, the
//! trunk and a sibling worktree alone. A test per class;
//! `every_round4_attack_does_damage_when_run_unguarded` keeps the fixtures honest.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::Agent;
use crate::guard_sandbox::{Sandbox, fixture_lines, section, trunk_world};

/// The header in a class's file after which every line is ordinary work that must pass.
const MUST_PASS: &str = "\n# Must pass";

/// What an attack may harm, as bytes by name: the primary's files, the trunk here and on
/// `origin`, and the sibling worktree (its files, its branch and whether git still lists it).
type State = BTreeMap<String, Vec<u8>>;

/// Issue 14's trunk world, furnished for the attacks: main is `@{-1}` of the linked worktree
/// (on berth/x, one commit ahead of main); a script `pwn` that writes `PWN` into the primary,
/// copied as every program git may be sent to (`evil/git-*`, `hooks-evil/*`, `tpl/hooks/*`);
/// configuration files naming it (`evil.cfg`, `fakehome/.gitconfig`, `xdg/git/config`, and
/// `pack.cfg` as `uploadpack.packObjectsHook`); a file `list` naming `../primary/PWN`;
/// `.gitattributes` giving every `*.txt` the drivers `pwn`; a branch `theirs` whose `work.txt`
/// conflicts with berth/x's. With `sibling`, a second linked
/// worktree `sib` claimed by another live session and one `mine` claimed by the agent's.
struct World {
    s: Sandbox,
    /// Where the agent stands: `linked`, or `mine` in a world with a sibling.
    agent: PathBuf,
    sibling: Option<PathBuf>,
    /// The session the guard runs for, and the other live session.
    sessions: Vec<Agent>,
}

impl World {
    fn new(tag: &str, sibling: bool) -> World {
        let s = trunk_world(tag, "main");
        let l = &s.linked;
        s.git(l, &["switch", "-q", "main"]);
        s.git(l, &["switch", "-q", "berth/x"]);
        s.git(l, &["branch", "theirs", "main"]);
        let pwn = format!("#!/bin/sh\ntouch '{}/PWN'\n", s.primary.display());
        let script = |rel: &str| {
            let p = l.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, &pwn).unwrap();
            let mut perm = std::fs::metadata(&p).unwrap().permissions();
            std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
            std::fs::set_permissions(&p, perm).unwrap();
        };
        script("pwn");
        for hook in ["pre-commit", "post-checkout", "post-commit", "pre-push"] {
            script(&format!("hooks-evil/{hook}"));
            script(&format!("tpl/hooks/{hook}"));
        }
        for program in ["upload-pack", "receive-pack", "request-pull", "remote-pwn"] {
            script(&format!("evil/git-{program}"));
        }
        let cfg = format!(
            "[core]\n\tfsmonitor = {0}/pwn\n[alias]\n\tst = !{0}/pwn\n",
            l.display()
        );
        for rel in ["evil.cfg", "fakehome/.gitconfig", "xdg/git/config"] {
            let p = l.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, &cfg).unwrap();
        }
        let pack = format!("[uploadpack]\n\tpackObjectsHook = {}/pwn\n", l.display());
        std::fs::write(l.join("pack.cfg"), pack).unwrap();
        std::fs::write(l.join("list"), "../primary/PWN\n").unwrap();
        std::fs::write(
            l.join(".gitattributes"),
            "*.txt diff=pwn merge=pwn filter=pwn\n",
        )
        .unwrap();
        let theirs = s.base.join("theirs");
        s.git(
            l,
            &["worktree", "add", "-q", theirs.to_str().unwrap(), "theirs"],
        );
        std::fs::write(theirs.join("work.txt"), "theirs\n").unwrap();
        s.git(&theirs, &["add", "work.txt"]);
        s.git(&theirs, &["commit", "-q", "-m", "theirs"]);
        s.git(
            l,
            &["worktree", "remove", "--force", theirs.to_str().unwrap()],
        );
        let mut w = World {
            agent: s.linked.clone(),
            s,
            sibling: None,
            sessions: Vec::new(),
        };
        if sibling {
            w.sessions = vec![Agent::spawn(), Agent::spawn()];
            w.agent = w.berth_add("mine", 0);
            w.sibling = Some(w.berth_add("sib", 1));
            std::fs::write(w.sibling.as_ref().unwrap().join("notes.txt"), "theirs\n").unwrap();
        }
        let tpl = w.template();
        let _ = std::fs::remove_dir_all(&tpl);
        w.copy(&w.s.base, &tpl);
        w
    }

    /// Where the world as made is kept, so each fixture starts from it at the same paths.
    fn template(&self) -> PathBuf {
        self.s.base.with_extension("template")
    }

    fn copy(&self, from: &Path, to: &Path) {
        let ok = Command::new("cp")
            .arg("-a")
            .args([from, to])
            .status()
            .expect("cp runs")
            .success();
        assert!(ok, "cp -a {} {}", from.display(), to.display());
    }

    /// The world as it was made, whatever the last fixture did to it.
    fn reset(&self) {
        std::fs::remove_dir_all(&self.s.base).expect("the world is removed");
        self.copy(&self.template(), &self.s.base);
    }

    /// `git berth add <name>` from the primary as session `who`: the worktree's path.
    fn berth_add(&self, name: &str, who: usize) -> PathBuf {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-berth"));
        cmd.args(["add", name]).current_dir(&self.s.primary);
        self.s.env(&mut cmd);
        cmd.envs(self.session_vars(who));
        let out = cmd.output().expect("berth runs");
        assert!(out.status.success(), "{out:?}");
        PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
    }

    /// The environment of session `who` (0 is the agent the guard runs for).
    fn session_vars(&self, who: usize) -> Vec<(String, String)> {
        match self.sessions.get(who) {
            Some(a) => vec![
                ("BERTH_SESSION".into(), format!("session-{who}")),
                ("BERTH_SESSION_PID".into(), a.pid().to_string()),
            ],
            None => Vec::new(),
        }
    }

    /// The fixture's lines with this world's places filled in.
    fn lines(&self, text: &str) -> Vec<String> {
        let sib = self.sibling.as_deref().unwrap_or(Path::new("/nonexistent"));
        let text = text
            .replace("@SIBLING@", &sib.display().to_string())
            .replace("@FREE@", &self.s.linked.display().to_string());
        fixture_lines(
            &text,
            &self.s.primary.display().to_string(),
            &self.agent.display().to_string(),
        )
    }

    fn state(&self) -> State {
        let mut out = State::new();
        for (p, body) in self.s.snapshot() {
            out.insert(p.display().to_string(), body);
        }
        let (here, origin) = self.s.tips("main");
        out.insert("main".into(), here.unwrap_or_default().into_bytes());
        out.insert(
            "origin/main".into(),
            origin.unwrap_or_default().into_bytes(),
        );
        if let Some(sib) = &self.sibling {
            for (p, body) in Sandbox::snapshot_of(sib) {
                out.insert(p.display().to_string(), body);
            }
            let tip = self.s.git_out(&self.s.primary, &["rev-parse", "berth/sib"]);
            out.insert("berth/sib".into(), tip.unwrap_or_default().into_bytes());
            let listed = self.s.git_out(&self.s.primary, &["worktree", "list"]);
            let held = listed.is_some_and(|l| l.contains(&*sib.to_string_lossy()));
            out.insert("sib listed".into(), vec![u8::from(held)]);
        }
        out
    }

    /// The guard's answer on `command` from `dir`, for the agent's session and `vars`.
    fn allows(&self, dir: &Path, command: &str, vars: &[(&str, &str)]) -> bool {
        let session = self.session_vars(0);
        let mut all: Vec<(&str, &str)> = session
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        all.extend_from_slice(vars);
        let o = self.s.guard_with(dir, &["--", command], None, &all);
        match o.status.code() {
            Some(0) => true,
            Some(2) => false,
            other => panic!("guard exited {other:?} on {command:?}"),
        }
    }

    /// Runs `command` for real from `dir` (with berth on `PATH`, as the agent's session);
    /// what it changed of the [`State`].
    fn run(&self, dir: &Path, command: &str) -> Vec<String> {
        let before = self.state();
        let bin = Path::new(env!("CARGO_BIN_EXE_git-berth")).parent().unwrap();
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
        let mut cmd = Command::new("timeout");
        cmd.args(["30", "bash", "-c", command])
            .current_dir(dir)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        self.s.env(&mut cmd);
        // `core.editor` must be the editor git picks, which `GIT_EDITOR` would beat.
        cmd.env_remove("GIT_EDITOR")
            .env("EDITOR", "true")
            .env("PATH", path)
            .envs(self.session_vars(0));
        let _ = cmd.status();
        Sandbox::changed(&before, &self.state())
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.template());
    }
}

/// A class: its fixture file, whether its world holds a sibling worktree, and the environment
/// the guard sees (an agent's layer).
struct Class {
    tag: &'static str,
    text: &'static str,
    sibling: bool,
    vars: &'static [(&'static str, &'static str)],
    /// The attacks are only judged, not run (running them needs what the sandbox lacks).
    judged_only: bool,
}

/// A class of attacks run for real from the linked worktree, as the guard sees them today.
const fn plain(tag: &'static str, text: &'static str) -> Class {
    Class {
        tag,
        text,
        sibling: false,
        vars: &[],
        judged_only: false,
    }
}

const APPROVE_SHIP: &str = include_str!("../fixtures/guard/round4-approve-ship.txt");

const CLASSES: &[Class] = &[
    plain(
        "runtime-values",
        include_str!("../fixtures/guard/round4-runtime-values.txt"),
    ),
    plain(
        "git-programs",
        include_str!("../fixtures/guard/round4-git-programs.txt"),
    ),
    plain(
        "script-then-run",
        include_str!("../fixtures/guard/round4-script-then-run.txt"),
    ),
    plain(
        "trunk-state",
        include_str!("../fixtures/guard/round4-trunk-state.txt"),
    ),
    plain(
        "links-outputs",
        include_str!("../fixtures/guard/round4-links-outputs.txt"),
    ),
    Class {
        sibling: true,
        ..plain(
            "sibling-worktrees",
            include_str!("../fixtures/guard/round4-sibling-worktrees.txt"),
        )
    },
    Class {
        vars: &[("BERTH_AGENT_LAYER", "1")],
        judged_only: true,
        ..plain("approve-ship", APPROVE_SHIP)
    },
    Class {
        vars: &[("BERTH_AGENT_LAYER", "2")],
        judged_only: true,
        ..plain("approve-ship-2", APPROVE_SHIP)
    },
    plain(
        "ordinary",
        include_str!("../fixtures/guard/round4-ordinary.txt"),
    ),
];

fn class(tag: &str) -> &'static Class {
    CLASSES.iter().find(|c| c.tag == tag).expect("a class")
}

/// The class's attacks (before [`MUST_PASS`]) and its ordinary work (after it).
fn split(text: &str) -> (&str, &str) {
    match text.split_once(MUST_PASS) {
        Some((attacks, _)) => (attacks, section(text, MUST_PASS)),
        None => (text, ""),
    }
}

/// Every spelling of `class` the guard gets wrong: an attack let through (from the agent's
/// worktree, or from the primary after `cd` into it), with what it changed when run, or
/// ordinary work blocked. Each starts from the world as made.
fn wrong_in(class: &Class) -> Vec<String> {
    let (attacks, ordinary) = split(class.text);
    let w = World::new(&format!("r4-{}", class.tag), class.sibling);
    let mut wrong = Vec::new();
    for (text, attack) in [(attacks, true), (ordinary, false)] {
        for line in w.lines(text) {
            for from_primary in [false, true] {
                let (dir, command) = if from_primary {
                    let cd = crate::common::sh_quote(&w.agent.display().to_string());
                    (w.s.primary.clone(), format!("cd {cd} && {line}"))
                } else {
                    (w.agent.clone(), line.clone())
                };
                let allowed = w.allows(&dir, &command, class.vars);
                let from = if from_primary { "primary" } else { "worktree" };
                if attack && allowed {
                    let changed = if class.judged_only {
                        "not run".to_string()
                    } else {
                        let changed = w.run(&dir, &command);
                        w.reset();
                        format!("changed when run: {changed:?}")
                    };
                    wrong.push(format!("let through from the {from}: {line:?} ({changed})"));
                } else if !attack && !allowed {
                    wrong.push(format!("blocked from the {from}: {line:?}"));
                }
            }
        }
    }
    wrong
}

fn closed(tag: &str) {
    let wrong = wrong_in(class(tag));
    assert!(
        wrong.is_empty(),
        "{} of class {tag} wrong: {wrong:#?}",
        wrong.len()
    );
}

/// Closed by the guard's round 4 (positional parameters, `read` loops, what `xargs` reads).
#[test]
fn round4_values_made_at_run_time_that_decide_a_written_path_block() {
    closed("runtime-values");
}

/// Closed by the guard's round 4 (settings, options and variables that name programs).
#[test]
fn round4_git_options_and_environment_that_run_programs_block() {
    closed("git-programs");
}

/// Closed by round 4: a file the command writes is refused when the same command runs it.
#[test]
fn round4_a_script_written_and_run_in_one_command_blocks() {
    closed("script-then-run");
}

#[test]
fn round4_the_trunk_reached_through_state_git_keeps_blocks() {
    closed("trunk-state");
}

#[test]
fn round4_links_and_output_arguments_into_the_primary_block() {
    closed("links-outputs");
}

#[test]
fn round4_writes_into_a_sibling_worktree_another_session_holds_block() {
    closed("sibling-worktrees");
}

#[test]
fn round4_agents_may_not_approve_or_ship() {
    let mut wrong = wrong_in(class("approve-ship"));
    wrong.extend(wrong_in(class("approve-ship-2")));
    for layer in ["1", "2"] {
        let w = World::new(&format!("r4-hint-{layer}"), false);
        let o = w.s.guard_with(
            &w.agent,
            &["--", "git push origin HEAD:main"],
            None,
            &[("BERTH_AGENT_LAYER", layer)],
        );
        let said = String::from_utf8_lossy(&o.stderr);
        if said.contains("review approve") {
            wrong.push(format!("layer {layer}: a hint suggests approving: {said}"));
        }
    }
    assert!(wrong.is_empty(), "{} wrong: {wrong:#?}", wrong.len());
}

/// Closed by round 4: `cd -` and `popd` back to where the command itself was, `$PWD`, writes
/// to `/dev/null`, and script text longer than any path.
#[test]
fn round4_ordinary_work_passes() {
    closed("ordinary");
}

/// Each attack, run for real without the guard, harms the primary, the trunk or the sibling, and
/// each ordinary command harms none: a fixture that proves nothing fails here.
#[test]
fn every_round4_attack_does_damage_when_run_unguarded() {
    let mut wrong = Vec::new();
    for class in CLASSES.iter().filter(|c| !c.judged_only) {
        let (attacks, ordinary) = split(class.text);
        let w = World::new(&format!("r4v-{}", class.tag), class.sibling);
        for (text, attack) in [(attacks, true), (ordinary, false)] {
            for line in w.lines(text) {
                let changed = w.run(&w.agent, &line);
                w.reset();
                if attack && changed.is_empty() {
                    wrong.push(format!("{}: harmless: {line:?}", class.tag));
                } else if !attack && !changed.is_empty() {
                    wrong.push(format!(
                        "{}: ordinary, changed {changed:?}: {line:?}",
                        class.tag
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
