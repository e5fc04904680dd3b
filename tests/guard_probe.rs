//! The guard's filesystem probe on checkouts made by the real git program: where links lead.

mod common;

use berth::guard::probe::{Place, locate, resolve};
use common::Sandbox;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

/// A primary checkout with a linked worktree beside it.
struct Checkouts {
    sandbox: Sandbox,
    primary: PathBuf,
    linked: PathBuf,
}

impl Checkouts {
    fn new() -> Checkouts {
        let sandbox = Sandbox::new();
        let primary = sandbox.repo("primary");
        sandbox.git(
            &primary,
            &["worktree", "add", "-q", "-b", "side", "../linked"],
        );
        Checkouts {
            linked: sandbox.root.join("linked"),
            primary,
            sandbox,
        }
    }

    fn primary_place(&self) -> Place {
        Place::Primary {
            root: self.primary.clone(),
        }
    }
}

#[test]
fn a_dangling_link_from_a_linked_worktree_lands_in_the_primary() {
    let c = Checkouts::new();
    let link = c.linked.join("p");
    symlink("../primary/x", &link).unwrap();
    assert_eq!(resolve(&link).unwrap(), c.primary.join("x"));
    assert_eq!(locate(&link).unwrap(), c.primary_place());
    assert_eq!(locate(&link.join("deeper/y")).unwrap(), c.primary_place());
}

#[test]
fn a_link_loop_in_a_checkout_is_an_error() {
    let c = Checkouts::new();
    symlink("b", c.linked.join("a")).unwrap();
    symlink("a", c.linked.join("b")).unwrap();
    assert!(locate(&c.linked.join("a/x")).is_err());
}

/// `git berth guard` run in `dir` with `args`, and `stdin` when given; returns the exit code.
fn guard(c: &Checkouts, dir: &Path, args: &[&str], stdin: Option<&str>) -> Option<i32> {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut all = vec!["guard"];
    all.extend_from_slice(args);
    let mut cmd = c.sandbox.berth_command(dir, &all);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap().status.code()
}

#[test]
fn the_guard_blocks_an_edit_through_a_dangling_link_into_the_primary() {
    let c = Checkouts::new();
    let link = c.linked.join("p");
    symlink("../primary/x", &link).unwrap();
    let edit = format!(
        r#"{{"session_id":"s1","cwd":"{linked}","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"file_path":"{link}","content":"x"}},"tool_use_id":"t1"}}"#,
        linked = c.linked.display(),
        link = link.display()
    );
    assert_eq!(
        guard(&c, &c.linked, &["--runtime", "claude"], Some(&edit)),
        Some(2)
    );
    assert_eq!(guard(&c, &c.linked, &["echo x > p"], None), Some(2));
    assert_eq!(guard(&c, &c.linked, &["echo x > q"], None), Some(0));
}
