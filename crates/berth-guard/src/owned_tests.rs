//! Tests of the owned-paths rule (`git berth own`, enforced by [`crate::decide`]) on a
//! repository laid out by hand in a temporary folder: a primary checkout `p` and two linked
//! worktrees `a` and `b`, with the owners file written as git berth writes it.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::owners::{Owned, render};
use crate::{Action, Block, Decision, Hatches, decide, probe};

/// A primary checkout and two linked worktrees in a private folder, removed when dropped.
struct Repo {
    base: PathBuf,
    a: PathBuf,
    b: PathBuf,
}

impl Repo {
    fn new() -> Repo {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let base = std::env::temp_dir().join(format!(
            "berth-owned-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&base);
        fs::create_dir_all(&base).unwrap();
        let base = fs::canonicalize(base).unwrap();
        let git = base.join("p/.git");
        fs::create_dir_all(&git).unwrap();
        fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        fs::write(git.join("config"), "").unwrap();
        for name in ["a", "b"] {
            let admin = git.join("worktrees").join(name);
            let tree = base.join(name);
            fs::create_dir_all(&admin).unwrap();
            fs::create_dir_all(tree.join("src/api")).unwrap();
            fs::create_dir_all(tree.join("src/web")).unwrap();
            fs::write(tree.join("src/api/x.rs"), "x").unwrap();
            fs::write(admin.join("HEAD"), format!("ref: refs/heads/{name}\n")).unwrap();
            fs::write(admin.join("commondir"), "../..\n").unwrap();
            fs::write(
                admin.join("gitdir"),
                format!("{}\n", tree.join(".git").display()),
            )
            .unwrap();
            fs::write(tree.join(".git"), format!("gitdir: {}\n", admin.display())).unwrap();
        }
        Repo {
            a: base.join("a"),
            b: base.join("b"),
            base,
        }
    }

    fn owners_file(&self) -> PathBuf {
        self.base.join("p/.git/berth/owners.guard")
    }

    /// The owners file, as git berth writes it.
    fn own(&self, owned: &[Owned]) {
        let file = self.owners_file();
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, render(owned)).unwrap();
    }

    /// `a` owns `pattern`, held by this test's own process (alive) or by a start time no
    /// process of this pid has (gone).
    fn a_owns(&self, patterns: &[&str], alive: bool) {
        let pid = std::process::id();
        let start = crate::process::start_time(pid).map(|s| if alive { s } else { s + 1 });
        let owned: Vec<Owned> = patterns
            .iter()
            .map(|p| Owned {
                pid,
                start,
                worktree: self.a.clone(),
                pattern: (*p).to_owned(),
                agent: None,
            })
            .collect();
        self.own(&owned);
    }
}

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.base);
    }
}

fn run(action: &Action) -> Decision {
    decide(&Hatches::default(), action, None, &mut probe::locate)
}

fn edit(cwd: &Path, file: &str) -> Decision {
    run(&Action::edit(vec![cwd.join(file)], cwd))
}

fn shell(cwd: &Path, command: &str) -> Decision {
    run(&Action::command(command, cwd))
}

fn allowed(d: &Decision) -> bool {
    matches!(d, Decision::Allow(_))
}

/// The block's message when `d` is the owned-paths block naming `a`.
fn owned_by_a(d: &Decision) -> Option<String> {
    match d {
        Decision::Block(b @ Block::Owned { owner, .. }) if owner.ends_with("a") => {
            Some(b.message())
        }
        _ => None,
    }
}

#[test]
fn another_worktrees_owned_paths_are_blocked_and_the_rest_are_not() {
    let r = Repo::new();
    r.a_owns(&["src/api/", "src/web/owned.rs"], true);
    let msg = owned_by_a(&edit(&r.b, "src/api/x.rs")).expect("b's edit of src/api/x.rs");
    assert!(msg.contains("the worktree a owns (src/api/)"), "{msg}");
    assert!(msg.contains("git berth send <agent>"), "{msg}");
    assert!(msg.contains("ask the master"), "{msg}");
    for c in [
        "sed -i s/x/y/ src/api/x.rs",
        "echo x > src/api/new.rs",
        "tee src/api/x.rs < /dev/null",
        "cp README src/api/x.rs",
        "rm -rf src",
        "rm -rf src/api",
        "touch src/web/free.rs src/web/owned.rs",
    ] {
        assert!(owned_by_a(&shell(&r.b, c)).is_some(), "{c}");
    }
    // Reads, unowned paths and a's own work stay open.
    for c in [
        "cat src/api/x.rs",
        "grep -r fn src",
        "echo x > src/web/y.rs",
        "touch src/web/free.rs src/web/other.rs",
    ] {
        assert!(allowed(&shell(&r.b, c)), "{c}: {:?}", shell(&r.b, c));
    }
    assert!(allowed(&edit(&r.b, "src/web/y.rs")));
    assert!(allowed(&edit(&r.a, "src/api/x.rs")));
    assert!(allowed(&shell(&r.a, "sed -i s/x/y/ src/api/x.rs")));
}

#[test]
fn a_path_owned_through_a_glob_is_blocked_in_every_folder_it_matches() {
    let r = Repo::new();
    r.a_owns(&["src/**/*.rs"], true);
    assert!(owned_by_a(&edit(&r.b, "src/web/deep/new.rs")).is_some());
    assert!(allowed(&edit(&r.b, "src/web/y.md")));
    assert!(allowed(&edit(&r.b, "README.md")));
}

#[test]
fn an_owner_whose_holder_is_gone_blocks_nothing() {
    let r = Repo::new();
    r.a_owns(&["src/api/"], false);
    assert!(allowed(&edit(&r.b, "src/api/x.rs")));
    assert!(allowed(&shell(&r.b, "sed -i s/x/y/ src/api/x.rs")));
}

#[test]
fn no_owners_file_or_an_empty_one_changes_nothing() {
    let r = Repo::new();
    assert!(allowed(&edit(&r.b, "src/api/x.rs")));
    r.own(&[]);
    assert!(allowed(&edit(&r.b, "src/api/x.rs")));
}

#[test]
fn an_owners_file_that_does_not_parse_blocks_writes_naming_it_and_the_fix() {
    let r = Repo::new();
    fs::create_dir_all(r.owners_file().parent().unwrap()).unwrap();
    fs::write(r.owners_file(), "# h\nnot an owned path\n").unwrap();
    let d = edit(&r.b, "src/web/y.rs");
    let Decision::Block(b) = &d else {
        panic!("{d:?}")
    };
    let msg = b.message();
    assert!(
        msg.contains(&r.owners_file().display().to_string()),
        "{msg}"
    );
    assert!(msg.contains("line 2"), "{msg}");
    assert!(msg.contains("git berth owners"), "{msg}");
    // Reads never look at it.
    assert!(allowed(&shell(&r.b, "cat src/api/x.rs")));
}

#[test]
fn an_owner_named_through_a_link_is_still_the_agent_itself() {
    let r = Repo::new();
    let link = r.base.join("to-a");
    std::os::unix::fs::symlink(&r.a, &link).unwrap();
    let pid = std::process::id();
    r.own(&[Owned {
        pid,
        start: crate::process::start_time(pid),
        worktree: link,
        pattern: "src/api/".to_owned(),
        agent: None,
    }]);
    assert!(allowed(&edit(&r.a, "src/api/x.rs")));
    assert!(owned_by_a_link(&edit(&r.b, "src/api/x.rs")));
}

#[test]
fn the_block_names_the_owners_agent_and_how_to_reach_it_when_one_works_there() {
    let r = Repo::new();
    let pid = std::process::id();
    r.own(&[Owned {
        pid,
        start: crate::process::start_time(pid),
        worktree: r.a.clone(),
        pattern: "src/api/".to_owned(),
        agent: Some("api-agent".to_owned()),
    }]);
    let msg = owned_by_a(&edit(&r.b, "src/api/x.rs")).expect("b's edit of src/api/x.rs");
    assert!(
        msg.contains("the worktree a of agent api-agent owns (src/api/)"),
        "{msg}"
    );
    assert!(msg.contains("`git berth send api-agent ...`"), "{msg}");
}

fn owned_by_a_link(d: &Decision) -> bool {
    matches!(d, Decision::Block(Block::Owned { owner, .. }) if owner.ends_with("to-a"))
}

#[test]
fn a_file_two_worktrees_globs_both_take_is_left_to_each_of_them() {
    let r = Repo::new();
    let pid = std::process::id();
    let start = crate::process::start_time(pid);
    let glob = |worktree: &Path, pattern: &str| Owned {
        pid,
        start,
        worktree: worktree.to_path_buf(),
        pattern: pattern.to_owned(),
        agent: None,
    };
    r.own(&[glob(&r.a, "src/**/*.rs"), glob(&r.b, "src/api/*.rs")]);
    assert!(allowed(&edit(&r.a, "src/api/new.rs")));
    assert!(allowed(&edit(&r.b, "src/api/new.rs")));
    assert!(owned_by_a(&edit(&r.b, "src/web/y.rs")).is_some());
}
