//! The trunk guard: may an agent's next action run? `decide` applies the seed's order over
//! plain data and asks an injected probe where each landing place lies; it never reads the
//! environment or stdin itself. Whatever goes wrong on the way blocks: the guard fails closed.

pub mod managed;
pub mod probe;
pub mod runtime;
pub mod shell;
pub mod whitelist;

use std::path::{Path, PathBuf};

pub use probe::Place;
pub use shell::Target;

/// The two escape hatches, as read from the environment (unset is `None`).
#[derive(Debug, Clone, Default)]
pub struct Hatches {
    pub allow_main_worktree: Option<String>,
    pub master_session: Option<String>,
}

/// What the agent is about to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// The shell command; empty for an edit, which never matches the whitelist.
    pub command: String,
    /// Where the agent stands (absolute).
    pub cwd: PathBuf,
    /// Files an edit writes (absolute); when there are any, they alone decide.
    pub edits: Vec<PathBuf>,
}

impl Action {
    pub fn command(command: impl Into<String>, cwd: impl Into<PathBuf>) -> Self {
        Action {
            command: command.into(),
            cwd: cwd.into(),
            edits: Vec::new(),
        }
    }

    pub fn edit(files: Vec<PathBuf>, cwd: impl Into<PathBuf>) -> Self {
        Action {
            command: String::new(),
            cwd: cwd.into(),
            edits: files,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow(Why),
    Block(Block),
}

/// Which rule let the action through; tests pin the order with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    AllowMainWorktree,
    MasterSession,
    Whitelisted,
    OutsideOrLinked,
    ReadOnlyTool,
}

/// Why the action is blocked, in words for the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// It lands in the primary checkout `root`; `what` says how.
    Primary { root: PathBuf, what: String },
    /// It lands somewhere only the running shell knows.
    Unknown { raw: String },
    /// The guard could not find out (unreadable `.git`, bad hook JSON, ...).
    Failed { what: String },
}

impl Block {
    /// The message for stderr (and the runtimes' deny JSON), in the seed's words: the primary
    /// checkout "is protected", then the way out through berth and through worktrunk.
    pub fn message(&self) -> String {
        let tool = crate::names::TOOL;
        let way_out = format!(
            "hint: work in a linked worktree: `{tool} add <name>`, then `cd \"$({tool} path <name>)\"` \
             (worktrunk: `wt switch -c <branch>`)"
        );
        match self {
            Block::Primary { root, what } => {
                format!(
                    "{tool}: the primary checkout {} is protected: {what}\n{way_out}",
                    root.display()
                )
            }
            Block::Unknown { raw } => format!(
                "{tool}: cannot tell where `{raw}` lands, so the guard blocks it \
                 (the primary checkout is protected)\n\
                 hint: spell the directory or file out, without variables or substitutions"
            ),
            Block::Failed { what } => {
                format!("{tool}: the guard blocks because it could not decide: {what}\n{way_out}")
            }
        }
    }
}

/// The seed's decision order, first match wins: each hatch at exactly `1`; the bootstrap
/// whitelist; then every place the action lands must be outside any checkout or in a linked
/// worktree. `probe` says where a path lies; `home` expands `~` in the command.
pub fn decide(
    hatches: &Hatches,
    action: &Action,
    home: Option<&Path>,
    probe: &mut dyn FnMut(&Path) -> std::io::Result<Place>,
) -> Decision {
    if let Some(why) = hatch(hatches) {
        return Decision::Allow(why);
    }
    if !action.command.is_empty() && whitelist::is_whitelisted(&action.command) {
        return Decision::Allow(Why::Whitelisted);
    }
    for target in landings(action, home) {
        if let Some(block) = judge(&target, &action.cwd, probe) {
            return Decision::Block(block);
        }
    }
    Decision::Allow(Why::OutsideOrLinked)
}

/// The first two rules: a hatch counts only at exactly `1`, so `true`, `yes` or ` 1` never open it.
pub fn hatch(hatches: &Hatches) -> Option<Why> {
    if hatches.allow_main_worktree.as_deref() == Some("1") {
        return Some(Why::AllowMainWorktree);
    }
    if hatches.master_session.as_deref() == Some("1") {
        return Some(Why::MasterSession);
    }
    None
}

/// Every place the action lands: the edited files alone for an edit; for anything else where
/// the agent stands, plus whatever the command names (a command that will not tokenize is
/// judged by where the agent stands, as the seed judges every command).
pub fn landings(action: &Action, home: Option<&Path>) -> Vec<Target> {
    if !action.edits.is_empty() && action.command.is_empty() {
        return action
            .edits
            .iter()
            .map(|f| Target::File(action.cwd.join(f)))
            .collect();
    }
    let mut out = vec![Target::Dir(action.cwd.clone())];
    out.extend(
        action
            .edits
            .iter()
            .map(|f| Target::File(action.cwd.join(f))),
    );
    if let Ok(found) = shell::targets(&action.command, &action.cwd, home) {
        out.extend(found);
    }
    out
}

fn judge(
    target: &Target,
    cwd: &Path,
    probe: &mut dyn FnMut(&Path) -> std::io::Result<Place>,
) -> Option<Block> {
    let path = match target {
        Target::Unknown(raw) => return Some(Block::Unknown { raw: raw.clone() }),
        Target::Dir(p) | Target::File(p) => p,
    };
    match probe(path) {
        Ok(Place::Outside | Place::Linked { .. }) => None,
        Ok(Place::Primary { root }) => {
            let what = match target {
                Target::File(f) => format!("the action writes {}", f.display()),
                _ if path == cwd => "the command runs there".to_string(),
                _ => format!("the command works in {}", path.display()),
            };
            Some(Block::Primary { root, what })
        }
        Err(e) => Some(Block::Failed {
            what: e.to_string(),
        }),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io;
    use std::path::Component;

    pub const PRIMARY: &str = "/repo/primary";
    pub const LINKED: &str = "/repo/linked";
    pub const HOME: &str = "/repo";

    /// A stand-in for the filesystem: `/repo/primary` is a primary checkout (with a linked
    /// worktree nested at `.claude/worktrees/x`), `/repo/linked` a linked worktree,
    /// `/repo/broken` unreadable, everything else outside any repository.
    pub fn fake_probe(path: &Path) -> io::Result<Place> {
        let mut norm = PathBuf::new();
        for c in path.components() {
            match c {
                Component::ParentDir => {
                    norm.pop();
                }
                Component::CurDir => {}
                other => norm.push(other.as_os_str()),
            }
        }
        if norm.starts_with("/repo/primary/.claude/worktrees/x") {
            Ok(Place::Linked {
                root: "/repo/primary/.claude/worktrees/x".into(),
                primary: Some(PRIMARY.into()),
            })
        } else if norm.starts_with(PRIMARY) {
            Ok(Place::Primary {
                root: PRIMARY.into(),
            })
        } else if norm.starts_with(LINKED) {
            Ok(Place::Linked {
                root: LINKED.into(),
                primary: Some(PRIMARY.into()),
            })
        } else if norm.starts_with("/repo/broken") {
            Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "cannot read /repo/broken/.git",
            ))
        } else {
            Ok(Place::Outside)
        }
    }

    fn no_hatches() -> Hatches {
        Hatches::default()
    }

    fn run(hatches: &Hatches, action: &Action) -> Decision {
        decide(hatches, action, Some(Path::new(HOME)), &mut fake_probe)
    }

    fn cmd(command: &str, cwd: &str) -> Decision {
        run(&no_hatches(), &Action::command(command, cwd))
    }

    fn blocked(d: &Decision) -> bool {
        matches!(d, Decision::Block(_))
    }

    #[test]
    fn a_mutating_command_in_the_primary_checkout_is_blocked_with_the_way_out() {
        let d = cmd("rm -rf build", PRIMARY);
        let Decision::Block(b) = &d else {
            panic!("{d:?}")
        };
        let msg = b.message();
        assert!(msg.contains("is protected"), "{msg}");
        assert!(msg.contains("git berth add <name>"), "{msg}");
        assert!(msg.contains("cd \"$(git berth path <name>)\""), "{msg}");
        assert!(msg.contains("wt switch -c <branch>"), "{msg}");
    }

    #[test]
    fn a_command_in_a_linked_worktree_is_allowed() {
        assert_eq!(
            cmd("rm -rf build", LINKED),
            Decision::Allow(Why::OutsideOrLinked)
        );
    }

    #[test]
    fn a_command_outside_any_repository_is_allowed() {
        assert_eq!(
            cmd("rm -rf build", "/tmp"),
            Decision::Allow(Why::OutsideOrLinked)
        );
    }

    #[test]
    fn each_hatch_at_exactly_one_allows_in_the_primary_checkout() {
        let a = Hatches {
            allow_main_worktree: Some("1".into()),
            master_session: None,
        };
        let m = Hatches {
            allow_main_worktree: None,
            master_session: Some("1".into()),
        };
        let act = Action::command("rm -rf build", PRIMARY);
        assert_eq!(run(&a, &act), Decision::Allow(Why::AllowMainWorktree));
        assert_eq!(run(&m, &act), Decision::Allow(Why::MasterSession));
    }

    #[test]
    fn the_first_hatch_wins_over_the_second() {
        let both = Hatches {
            allow_main_worktree: Some("1".into()),
            master_session: Some("1".into()),
        };
        assert_eq!(
            run(&both, &Action::command("x", PRIMARY)),
            Decision::Allow(Why::AllowMainWorktree)
        );
    }

    #[test]
    fn garbage_hatch_values_do_not_open_the_primary_checkout() {
        for value in [
            "", "0", "true", "yes", "TRUE", " 1", "1 ", "01", "11", "1\n", "on", "-1", "１",
        ] {
            let h = Hatches {
                allow_main_worktree: Some(value.into()),
                master_session: Some(value.into()),
            };
            assert!(
                blocked(&run(&h, &Action::command("rm -rf build", PRIMARY))),
                "{value:?}"
            );
        }
    }

    #[test]
    fn whitelisted_verbs_are_allowed_in_the_primary_checkout() {
        for c in [
            "wt switch -c feat/x",
            "wt list",
            "git berth add auth",
            "git berth path auth",
            "git berth ls",
        ] {
            assert_eq!(cmd(c, PRIMARY), Decision::Allow(Why::Whitelisted), "{c}");
        }
    }

    #[test]
    fn smuggling_past_the_whitelist_is_blocked() {
        for c in [
            "wt switch foo; rm -rf /",
            "wt switch foo && rm -rf /",
            "wt switch foo | sh",
            "wt switch foo > x",
            "wt switch $(rm -rf /)",
            "wt switch `rm -rf /`",
        ] {
            assert!(blocked(&cmd(c, PRIMARY)), "{c}");
        }
    }

    #[test]
    fn excluded_verbs_are_blocked_in_the_primary_checkout() {
        for c in [
            "wt merge main",
            "wt remove x",
            "git berth remove x",
            "git berth clean",
        ] {
            assert!(blocked(&cmd(c, PRIMARY)), "{c}");
        }
    }

    #[test]
    fn the_empty_command_is_judged_by_where_the_agent_stands() {
        assert!(blocked(&cmd("", PRIMARY)));
        assert_eq!(cmd("", LINKED), Decision::Allow(Why::OutsideOrLinked));
    }

    fn corpus(text: &str) -> Vec<String> {
        text.lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with("# "))
            .map(|l| l.replace("@PRIMARY@", PRIMARY))
            .collect()
    }

    #[test]
    fn every_command_of_the_injection_corpus_is_blocked() {
        let from_primary = corpus(include_str!(
            "../../tests/fixtures/guard/injection-from-primary.txt"
        ));
        let from_linked = corpus(include_str!(
            "../../tests/fixtures/guard/injection-from-linked.txt"
        ));
        assert!(
            from_primary.len() + from_linked.len() >= 100,
            "the corpus holds at least 100 commands"
        );
        let mut let_through = Vec::new();
        for c in &from_primary {
            if !blocked(&cmd(c, PRIMARY)) {
                let_through.push(format!("from primary: {c}"));
            }
        }
        for c in &from_linked {
            if !blocked(&cmd(c, LINKED)) {
                let_through.push(format!("from linked: {c}"));
            }
        }
        assert!(
            let_through.is_empty(),
            "let through:\n{}",
            let_through.join("\n")
        );
    }

    #[test]
    fn multi_line_commands_and_heredocs_reaching_the_primary_are_blocked() {
        for c in [
            "ls\ncd /repo/primary\ntouch x",
            "cat > /repo/primary/a <<EOF\nhello\nEOF",
            "echo a \\\n > /repo/primary/a",
            "for f in a b; do\n  cd /repo/primary && touch $f\ndone",
        ] {
            assert!(blocked(&cmd(c, LINKED)), "{c:?}");
        }
    }

    #[test]
    fn an_edit_of_a_file_in_the_primary_is_blocked_even_from_a_linked_worktree() {
        let act = Action::edit(vec!["/repo/primary/src/lib.rs".into()], LINKED);
        let d = run(&no_hatches(), &act);
        let Decision::Block(Block::Primary { root, what }) = &d else {
            panic!("{d:?}")
        };
        assert_eq!(root, Path::new(PRIMARY));
        assert!(what.contains("/repo/primary/src/lib.rs"));
    }

    #[test]
    fn an_edit_of_a_file_in_a_linked_worktree_is_allowed_even_from_the_primary() {
        let act = Action::edit(vec!["/repo/linked/src/lib.rs".into()], PRIMARY);
        assert_eq!(
            run(&no_hatches(), &act),
            Decision::Allow(Why::OutsideOrLinked)
        );
    }

    #[test]
    fn a_relative_edit_path_is_taken_from_where_the_agent_stands() {
        assert!(blocked(&run(
            &no_hatches(),
            &Action::edit(vec!["../primary/a".into()], LINKED)
        )));
        assert!(!blocked(&run(
            &no_hatches(),
            &Action::edit(vec!["src/a".into()], LINKED)
        )));
    }

    #[test]
    fn a_linked_worktree_nested_inside_the_primary_is_still_a_linked_worktree() {
        let act = Action::edit(
            vec!["/repo/primary/.claude/worktrees/x/a.rs".into()],
            PRIMARY,
        );
        assert_eq!(
            run(&no_hatches(), &act),
            Decision::Allow(Why::OutsideOrLinked)
        );
    }

    #[test]
    fn commands_that_stay_out_of_the_primary_are_allowed_from_a_linked_worktree() {
        for c in [
            "cargo test",
            "cd src && cargo test",
            "git -C /repo/linked status",
            "echo x > /tmp/out 2>&1",
            "echo x > /dev/null",
            "cmd >&2",
            "cmd 2>&1 | tee /tmp/log",
            "ls /repo/primary",
            "cat /repo/primary/README.md",
            "git --git-dir=/repo/linked/.git log",
            "echo 'cd /repo/primary && touch x'",
            "echo \"> /repo/primary/a\"",
            "grep -r 'GIT_DIR=/repo/primary' .",
            "cd /repo/primary/.claude/worktrees/x && make",
            "cd \"$(git berth path other)\"",
        ] {
            let d = cmd(c, LINKED);
            if c.contains("$(") {
                // Where a substitution leads is unknowable: fail closed.
                assert!(blocked(&d), "{c}");
            } else {
                assert_eq!(d, Decision::Allow(Why::OutsideOrLinked), "{c}");
            }
        }
    }

    #[test]
    fn a_command_that_will_not_tokenize_is_judged_by_where_the_agent_stands() {
        assert_eq!(
            cmd("cd /repo/primary && echo 'unterminated", LINKED),
            Decision::Allow(Why::OutsideOrLinked)
        );
        assert!(blocked(&cmd("echo 'unterminated", PRIMARY)));
    }

    #[test]
    fn a_probe_error_blocks() {
        let d = cmd("ls", "/repo/broken");
        let Decision::Block(Block::Failed { what }) = &d else {
            panic!("{d:?}")
        };
        assert!(what.contains("/repo/broken"));
        assert!(blocked(&run(
            &no_hatches(),
            &Action::edit(vec!["/repo/broken/a".into()], LINKED)
        )));
    }

    #[test]
    fn an_unknowable_place_blocks_with_a_reason_naming_it() {
        let d = cmd("echo x > \"$LOG\"", LINKED);
        let Decision::Block(b @ Block::Unknown { .. }) = &d else {
            panic!("{d:?}")
        };
        assert!(b.message().contains("$LOG"));
    }
}
