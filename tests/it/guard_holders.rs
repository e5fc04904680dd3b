//! The guard keeps an agent out of linked worktrees other live sessions hold (their claim, or an
//! agent berth launched there), on real repositories: the holders file berth writes beside each
//! worktree's git admin folder, read by the real guard binary.

use std::path::Path;
use std::process::Output;

use crate::common::{Agent, Sandbox};

/// `git berth guard -- <command>` from `dir` as session `session`.
fn guard(sb: &Sandbox, dir: &Path, session: &str, command: &str) -> Output {
    let mut cmd = sb.berth_command(dir, &["guard", "--", command]);
    cmd.env("BERTH_SESSION", session)
        .env_remove("BERTH_ALLOW_MAIN_WORKTREE")
        .env_remove("BERTH_MASTER_SESSION");
    cmd.output().unwrap()
}

fn code(o: &Output) -> Option<i32> {
    o.status.code()
}

#[test]
fn writes_into_a_worktree_another_live_session_holds_are_blocked_and_free_or_own_ones_are_not() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let me = Agent::spawn();
    let mut them = Agent::spawn();
    let add_as = |who: &str, pid: u32, name: &str| {
        let out = sb.berth_as(&repo, who, pid, &["add", name]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::path::PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
    };
    let mine = add_as("me", me.pid(), "mine");
    let mine_too = add_as("me", me.pid(), "mine-too");
    let theirs = add_as("them", them.pid(), "theirs");
    let free = add_as("me", me.pid(), "free");
    let out = sb.berth_as(&repo, "me", me.pid(), &["release", "free"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = theirs.display();
    for c in [
        format!("rm -rf {t}/src"),
        format!("echo x > {t}/new.txt"),
        format!("git -C {t} commit --allow-empty -m x"),
        format!("git worktree remove --force {t}"),
        format!("cd {t} && touch y"),
        format!("cp README.md {t}/README.md"),
    ] {
        let o = guard(&sb, &mine, "me", &c);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(code(&o), Some(2), "{c}: {err}");
        assert!(
            err.contains("another live session holds (them, pid"),
            "{c}: {err}"
        );
    }
    // From the primary, `cd` into one's own worktree is still the way out; into theirs it is not.
    let into_mine = format!("cd {} && touch y", mine.display());
    assert_eq!(code(&guard(&sb, &repo, "me", &into_mine)), Some(0));
    assert_eq!(
        code(&guard(&sb, &repo, "me", &format!("cd {t} && touch y"))),
        Some(2)
    );
    // Its own other worktree, a free one, and reading theirs stay open.
    for c in [
        format!("touch {}/y", mine_too.display()),
        format!("touch {}/y", free.display()),
        format!("cat {t}/README.md"),
        format!("git -C {t} log --oneline"),
    ] {
        let o = guard(&sb, &mine, "me", &c);
        assert_eq!(
            code(&o),
            Some(0),
            "{c}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // Once their process is gone, the hold is stale and the worktree is free to write.
    them.kill();
    let o = guard(&sb, &mine, "me", &format!("rm -rf {t}/src"));
    assert_eq!(code(&o), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    // Real git takes the file in its admin folder as it is, and removes it with the worktree.
    sb.git(&repo, &["worktree", "list"]);
    sb.berth_ok(&repo, &["remove", "theirs"]);
    sb.git(&repo, &["worktree", "prune"]);
    assert!(!repo.join(".git/worktrees/theirs").exists());
    drop(me);
}

#[test]
fn the_holders_file_follows_claims_and_agents_and_goes_when_nothing_holds() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let agent = Agent::spawn();
    let out = sb.berth_as(&repo, "s1", agent.pid(), &["add", "x"]);
    assert!(out.status.success());
    let file = repo.join(".git/worktrees/x/berth-holders");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains(&format!("{} ", agent.pid())) && text.contains(" s1\n"),
        "{text}"
    );
    let out = sb.berth_as(&repo, "s1", agent.pid(), &["release", "x"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!file.exists(), "released, nothing holds x");
}
