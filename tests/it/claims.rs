//! Sessions and claims: who holds a worktree, live or stale, and what `add`, `claim`, `release`,
//! `list` and `remove` make of it. Another agent is a real `sleep` process whose pid is the
//! claim's `BERTH_SESSION_PID`; a stale claim is one whose process was killed or whose age
//! passed `berth.claimTtl`.

use crate::common;

use std::path::Path;

use common::{Agent, Sandbox, error_lines, git_worktree_at, git_worktrees, stderr, stdout};
use serde_json::Value;

/// The registry file's bytes, to show that a command changed nothing.
fn registry_bytes(sb: &Sandbox, repo: &Path) -> Vec<u8> {
    std::fs::read(sb.registry_path(repo)).unwrap()
}

/// Parse the JSON a command printed on stdout.
fn json(out: &std::process::Output) -> Value {
    assert!(out.status.success(), "{}", common::outputs(out));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", common::outputs(out)))
}

/// The names `list --json <extra>` shows, run as the default session in `dir`.
fn listed(sb: &Sandbox, dir: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["list", "--json"];
    args.extend_from_slice(extra);
    sb.berth_json(dir, &args)["worktrees"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The session the sandbox's plain commands run as (no `--session`, no `BERTH_SESSION`).
fn default_session(sb: &Sandbox, repo: &Path) -> String {
    let row = sb.list_rows(repo, false);
    let mine = row
        .iter()
        .find(|r| r["status"] == "claimed")
        .expect("a worktree the default session made");
    mine["claimed_by"].as_str().unwrap().to_owned()
}

#[test]
fn add_claims_the_new_worktree_for_the_session_that_made_it() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");

    let out = sb
        .berth_command(&repo, &["add", "auth", "--json"])
        .env("BERTH_SESSION", "s1")
        .output()
        .unwrap();
    let added = json(&out);

    assert_eq!(added["session"], "s1");
    assert_eq!(added["reused"], false);
    assert_eq!(added["reclaimed_stale"], false);
    let row = sb.list_row(&repo, "auth");
    assert_eq!(row["status"], "claimed", "{row}");
    assert_eq!(row["claimed_by"], "s1", "{row}");
    assert_eq!(row["stale_reason"], Value::Null);
}

#[test]
fn the_session_flag_wins_over_the_environment() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");

    let out = sb
        .berth_command(&repo, &["--session", "flagged", "add", "auth", "--json"])
        .env("BERTH_SESSION", "from-env")
        .output()
        .unwrap();

    assert_eq!(json(&out)["session"], "flagged");
    assert_eq!(sb.list_row(&repo, "auth")["claimed_by"], "flagged");
}

#[test]
fn without_a_session_the_claim_is_held_by_the_agent_process_as_user_at_host_and_its_pid() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");

    let out = sb
        .berth_command(&repo, &["add", "auth", "--json"])
        .env("USER", "alice")
        .output()
        .unwrap();

    let session = json(&out)["session"].as_str().unwrap().to_owned();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_default();
    assert!(session.starts_with("alice@"), "{session}");
    // The agent here is this test process: berth's nearest ancestor that is not a shell.
    if !host.is_empty() {
        assert_eq!(session, format!("alice@{host}:{}", std::process::id()));
    }
}

#[test]
fn a_claim_made_through_git_and_a_shell_follows_the_agent_above_them() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = format!(
        "{}:{}",
        common::berth_bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );

    // This test process is the "agent": the sh and git in between must be skipped.
    let mut cmd = std::process::Command::new("sh");
    sb.env(&mut cmd);
    let out = cmd
        .arg("-c")
        .arg("git berth add auth")
        .current_dir(&repo)
        .env("PATH", &path)
        .env("BERTH_SESSION", "s1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::outputs(&out));

    let agent = Agent::spawn();
    let err = sb.berth_as(&repo, "s2", agent.pid(), &["claim", "auth"]);
    assert_eq!(err.status.code(), Some(1), "{}", common::outputs(&err));
    let me = std::process::id();
    assert!(
        stderr(&err).contains(&format!("claimed by session s1 (pid {me},")),
        "the claim names this test process, not sh or git: {}",
        stderr(&err)
    );
}

#[test]
fn add_of_a_name_another_live_session_holds_is_refused_naming_holder_pid_and_age() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let agent = Agent::spawn();
    let out = sb.berth_as(&repo, "s2", agent.pid(), &["add", "auth"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let before = sb.state(&repo);

    let out = sb.berth(&repo, &["add", "auth"]);

    assert_eq!(out.status.code(), Some(1), "{}", common::outputs(&out));
    assert_eq!(stdout(&out), "", "nothing on stdout");
    let (first, hint) = error_lines(&stderr(&out));
    assert!(first.starts_with("git berth: "), "{first}");
    assert!(first.contains("'auth'"), "{first}");
    assert!(first.contains("claimed by session s2"), "{first}");
    assert!(first.contains(&format!("pid {}", agent.pid())), "{first}");
    assert!(first.contains("s ago"), "the age is shown: {first}");
    assert!(hint.is_some(), "a hint follows");
    assert_eq!(sb.state(&repo), before, "the refusal changed nothing");
    assert_eq!(sb.list_row(&repo, "auth")["claimed_by"], "s2");
}

#[test]
fn add_with_no_reuse_refuses_an_existing_name_even_when_available() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add(&repo, &["auth"]);
    sb.berth_ok(&repo, &["release", "auth"]);
    let before = sb.state(&repo);

    let err = sb.berth_err(&repo, &["add", "auth", "--no-reuse"]);

    assert!(err.contains("already exists"), "{err}");
    assert_eq!(sb.state(&repo), before);
}

#[test]
fn add_of_an_available_name_reuses_and_claims_it() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    sb.berth_ok(&repo, &["release", "auth"]);
    assert_eq!(sb.list_row(&repo, "auth")["status"], "available");
    let agent = Agent::spawn();

    let added = json(&sb.berth_as(&repo, "s2", agent.pid(), &["add", "auth", "--json"]));

    assert_eq!(added["reused"], true);
    assert_eq!(added["reclaimed_stale"], false);
    assert_eq!(added["path"], path.to_str().unwrap());
    assert_eq!(sb.list_row(&repo, "auth")["claimed_by"], "s2");
    assert_eq!(git_worktrees(&sb, &repo).len(), 2, "no second worktree");
}

#[test]
fn add_of_a_name_whose_holder_died_reuses_it_and_reports_the_stale_claim() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut agent = Agent::spawn();
    let pid = agent.pid();
    let out = sb.berth_as(&repo, "s2", pid, &["add", "auth"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let path = std::path::PathBuf::from(stdout(&out).trim());
    agent.kill();

    let row = sb.list_row(&repo, "auth");
    assert_eq!(row["status"], "stale", "{row}");
    assert_eq!(row["claimed_by"], "s2", "{row}");
    assert_eq!(row["stale_reason"], format!("pid {pid} is gone"));

    let out = sb
        .berth_command(&repo, &["add", "auth", "--json"])
        .env("BERTH_SESSION", "s1")
        .output()
        .unwrap();
    let added = json(&out);

    assert_eq!(added["reused"], true);
    assert_eq!(added["reclaimed_stale"], true);
    assert_eq!(added["session"], "s1");
    assert_eq!(added["path"], path.to_str().unwrap());
    assert!(
        stderr(&out).contains("stale") && stderr(&out).contains("s2"),
        "the reclaim is never silent: {}",
        stderr(&out)
    );
    let row = sb.list_row(&repo, "auth");
    assert_eq!(row["status"], "claimed");
    assert_eq!(row["claimed_by"], "s1");
    assert_eq!(git_worktrees(&sb, &repo).len(), 2, "the same worktree");
}

#[test]
fn a_claim_older_than_the_ttl_is_stale_and_claim_reclaims_it() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let agent = Agent::spawn();
    let out = sb.berth_as(&repo, "s2", agent.pid(), &["add", "auth"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    sb.git(&repo, &["config", "berth.claimTtl", "1s"]);
    std::thread::sleep(std::time::Duration::from_millis(1100));

    let row = sb.list_row(&repo, "auth");
    assert_eq!(row["status"], "stale", "alive but too old: {row}");
    assert_eq!(row["stale_reason"], "older than 1s");

    let out = sb.berth(&repo, &["claim", "auth", "--json"]);
    let claimed = json(&out);
    assert_eq!(claimed["reclaimed_stale"], true);
    assert_eq!(claimed["already_held"], false);
    assert!(stderr(&out).contains("older than 1s"), "{}", stderr(&out));
    assert_eq!(sb.list_row(&repo, "auth")["status"], "claimed");
}

#[test]
fn claiming_your_own_claim_is_a_successful_no_op() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    let before = registry_bytes(&sb, &repo);

    let claimed = sb.berth_json(&repo, &["claim", "auth", "--json"]);
    let plain = sb.berth_ok(&repo, &["claim", "auth"]);

    assert_eq!(claimed["already_held"], true);
    assert_eq!(claimed["reclaimed_stale"], false);
    assert_eq!(claimed["name"], "auth");
    assert_eq!(claimed["path"], path.to_str().unwrap());
    assert_eq!(
        plain.trim_end(),
        path.to_str().unwrap(),
        "claim prints the path"
    );
    assert_eq!(registry_bytes(&sb, &repo), before, "nothing was written");
}

#[test]
fn claim_of_a_worktree_another_live_session_holds_is_refused() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let agent = Agent::spawn();
    let out = sb.berth_as(&repo, "s2", agent.pid(), &["add", "auth"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let before = registry_bytes(&sb, &repo);

    let err = sb.berth_err(&repo, &["claim", "auth"]);

    let (first, _) = error_lines(&err);
    assert!(first.contains("claimed by session s2"), "{first}");
    assert!(first.contains(&format!("pid {}", agent.pid())), "{first}");
    assert_eq!(registry_bytes(&sb, &repo), before);
    assert_eq!(sb.list_row(&repo, "auth")["claimed_by"], "s2");
}

#[test]
fn claim_of_an_unknown_name_is_refused() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");

    let err = sb.berth_err(&repo, &["claim", "nope"]);

    assert!(err.contains("nope"), "{err}");
}

#[test]
fn release_of_another_live_sessions_claim_is_refused() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let agent = Agent::spawn();
    let out = sb.berth_as(&repo, "s2", agent.pid(), &["add", "auth"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let before = registry_bytes(&sb, &repo);

    let err = sb.berth_err(&repo, &["release", "auth"]);

    let (line, hint) = common::error_lines(&err);
    let pid = format!("claimed by session s2 (pid {}, ", agent.pid());
    assert!(line.contains(&pid), "{err}");
    let hint = hint.unwrap();
    assert!(hint.contains("only its holder releases it"), "{hint}");
    assert!(hint.contains("berth.claimTtl"), "{hint}");
    let (line, _) = common::error_lines(&sb.berth_err(&repo, &["remove", "auth"]));
    assert!(
        line.contains(&pid),
        "remove names the holder as claim does: {line}"
    );
    assert_eq!(registry_bytes(&sb, &repo), before);
    let row = sb.list_row(&repo, "auth");
    assert_eq!(row["status"], "claimed");
    assert_eq!(row["claimed_by"], "s2");
}

#[test]
fn release_of_a_stale_claim_is_allowed() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut agent = Agent::spawn();
    let out = sb.berth_as(&repo, "s2", agent.pid(), &["add", "auth"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    agent.kill();

    let released = sb.berth_json(&repo, &["release", "auth", "--json"]);

    assert_eq!(released["released"], true);
    assert_eq!(released["released_stale"], true);
    let row = sb.list_row(&repo, "auth");
    assert_eq!(row["status"], "available");
    assert_eq!(row["claimed_by"], Value::Null);
}

#[test]
fn releasing_twice_is_a_no_op() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add(&repo, &["auth"]);

    let first = sb.berth_json(&repo, &["release", "auth", "--json"]);
    let after_first = registry_bytes(&sb, &repo);
    let second = sb.berth_json(&repo, &["release", "auth", "--json"]);

    assert_eq!(first["released"], true);
    assert_eq!(first["released_stale"], false);
    assert_eq!(second["released"], false);
    assert_eq!(second["released_stale"], false);
    assert_eq!(registry_bytes(&sb, &repo), after_first, "nothing written");
    assert_eq!(sb.list_row(&repo, "auth")["status"], "available");
}

#[test]
fn after_a_release_another_session_can_claim_and_the_first_cannot_take_it_back() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["auth"]);
    sb.berth_ok(&repo, &["release", "auth"]);
    let agent = Agent::spawn();

    let out = sb.berth_as(&repo, "s2", agent.pid(), &["claim", "auth", "--json"]);
    let claimed = json(&out);

    assert_eq!(claimed["session"], "s2");
    assert_eq!(claimed["already_held"], false);
    assert_eq!(claimed["reclaimed_stale"], false);
    assert_eq!(claimed["path"], path.to_str().unwrap());
    assert_eq!(sb.list_row(&repo, "auth")["claimed_by"], "s2");
    let err = sb.berth_err(&repo, &["claim", "auth"]);
    assert!(err.contains("claimed by session s2"), "{err}");
}

/// `mine` (the default session's), `theirs` (s2, live), `free` (released), `old` (s2, stale).
fn four_kinds(sb: &Sandbox, repo: &Path, agent: &Agent) -> [std::path::PathBuf; 4] {
    let mine = sb.add(repo, &["mine"]);
    let out = sb.berth_as(repo, "s2", agent.pid(), &["add", "theirs"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let theirs = std::path::PathBuf::from(stdout(&out).trim());
    let free = sb.add(repo, &["free"]);
    sb.berth_ok(repo, &["release", "free"]);
    let mut dead = Agent::spawn();
    let out = sb.berth_as(repo, "s3", dead.pid(), &["add", "old"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let old = std::path::PathBuf::from(stdout(&out).trim());
    dead.kill();
    [mine, theirs, free, old]
}

#[test]
fn list_filters_by_status_and_by_mine() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let agent = Agent::spawn();
    four_kinds(&sb, &repo, &agent);

    let rows = sb.list_rows(&repo, false);
    let status: Vec<(&str, &str, &Value)> = rows
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap(),
                r["status"].as_str().unwrap(),
                &r["claimed_by"],
            )
        })
        .collect();
    let me = default_session(&sb, &repo);
    assert_eq!(
        status,
        [
            ("mine", "claimed", &Value::from(me.as_str())),
            ("theirs", "claimed", &Value::from("s2")),
            ("free", "available", &Value::Null),
            ("old", "stale", &Value::from("s3")),
        ]
    );
    assert_eq!(listed(&sb, &repo, &["--status", "available"]), ["free"]);
    assert_eq!(
        listed(&sb, &repo, &["--status", "claimed"]),
        ["mine", "theirs"]
    );
    assert_eq!(listed(&sb, &repo, &["--status", "stale"]), ["old"]);
    assert_eq!(listed(&sb, &repo, &["--mine"]), ["mine"]);
    assert!(
        listed(&sb, &repo, &["--mine", "--status", "available"]).is_empty(),
        "the filters combine"
    );

    let table = sb.berth_ok(&repo, &["list", "--status", "claimed"]);
    assert!(table.contains("claimed by s2"), "{table}");
    assert!(!table.contains("free"), "{table}");
}

#[test]
fn the_worktree_you_stand_in_is_never_filtered_out() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let agent = Agent::spawn();
    let [_, theirs, free, _] = four_kinds(&sb, &repo, &agent);

    assert_eq!(
        listed(&sb, &free, &["--status", "stale"]),
        ["free", "old"],
        "standing in an available one, filtering for stale"
    );
    assert_eq!(listed(&sb, &theirs, &["--mine"]), ["mine", "theirs"]);
    let rows = sb.berth_json(
        &free.join("src"),
        &["list", "--json", "--status", "claimed"],
    );
    let current: Vec<&Value> = rows["worktrees"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["current"] == true)
        .collect();
    assert_eq!(current.len(), 1, "{rows}");
    assert_eq!(current[0]["name"], "free", "from a subfolder too");
}

#[test]
fn invalid_session_ids_are_refused_and_change_nothing() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add(&repo, &["auth"]);
    let before = sb.state(&repo);

    for bad in ["a/b", "..", "a b", "x\\y", "a..b"] {
        for args in [
            vec!["add", "new"],
            vec!["claim", "auth"],
            vec!["release", "auth"],
            vec!["list"],
        ] {
            let mut flagged = vec!["--session", bad];
            flagged.extend_from_slice(&args);
            let out = sb.berth(&repo, &flagged);
            assert_eq!(out.status.code(), Some(1), "--session {bad:?} {args:?}");
            assert!(
                stderr(&out).contains("invalid session id"),
                "{}",
                stderr(&out)
            );

            let out = sb
                .berth_command(&repo, &args)
                .env("BERTH_SESSION", bad)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(1), "BERTH_SESSION={bad:?} {args:?}");
            assert!(
                stderr(&out).contains("invalid session id"),
                "{}",
                stderr(&out)
            );
        }
    }
    assert_eq!(sb.state(&repo), before, "no refusal changed anything");
}

#[test]
fn a_session_pid_that_is_not_a_number_is_refused() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");

    let out = sb
        .berth_command(&repo, &["add", "auth"])
        .env("BERTH_SESSION", "s1")
        .env("BERTH_SESSION_PID", "abc")
        .output()
        .unwrap();

    assert_eq!(out.status.code(), Some(1), "{}", common::outputs(&out));
    assert!(
        stderr(&out).contains("BERTH_SESSION_PID"),
        "{}",
        stderr(&out)
    );
    assert_eq!(git_worktrees(&sb, &repo).len(), 1);
}

#[test]
fn remove_refuses_a_worktree_another_live_session_holds_unless_forced() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let agent = Agent::spawn();
    let out = sb.berth_as(&repo, "s2", agent.pid(), &["add", "auth"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let path = std::path::PathBuf::from(stdout(&out).trim());
    let before = sb.state(&repo);

    let err = sb.berth_err(&repo, &["remove", "auth"]);

    let (first, hint) = error_lines(&err);
    assert!(first.contains("claimed by session s2"), "{first}");
    assert!(hint.unwrap_or_default().contains("--force"), "{err}");
    assert_eq!(sb.state(&repo), before);
    assert!(git_worktree_at(&sb, &repo, &path).is_some());

    sb.berth_ok(&repo, &["remove", "--force", "auth"]);
    assert!(git_worktree_at(&sb, &repo, &path).is_none());
    assert!(!path.exists());
    assert!(sb.has_branch(&repo, "berth/auth"));
}

#[test]
fn remove_takes_a_worktree_whose_claim_went_stale() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut agent = Agent::spawn();
    let out = sb.berth_as(&repo, "s2", agent.pid(), &["add", "auth"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let path = std::path::PathBuf::from(stdout(&out).trim());
    agent.kill();

    sb.berth_ok(&repo, &["remove", "auth"]);

    assert!(git_worktree_at(&sb, &repo, &path).is_none());
}

#[test]
fn the_holding_session_removes_its_own_worktree_without_force() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let agent = Agent::spawn();
    let out = sb.berth_as(&repo, "s2", agent.pid(), &["add", "auth"]);
    assert!(out.status.success(), "{}", common::outputs(&out));

    let out = sb.berth_as(&repo, "s2", agent.pid(), &["remove", "auth"]);

    assert!(out.status.success(), "{}", common::outputs(&out));
    assert_eq!(git_worktrees(&sb, &repo).len(), 1);
}

#[test]
fn a_claim_whose_process_is_a_zombie_is_stale_and_claim_clean_and_remove_take_it() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let holder = common::Unreaped::sleeper();
    for name in ["auth", "db"] {
        let out = sb.berth_as(&repo, "s2", holder.pid, &["add", name]);
        assert!(out.status.success(), "{}", common::outputs(&out));
    }
    holder.kill();
    assert_eq!(holder.state(), Some('Z'), "it exited and nobody reaped it");

    let row = sb.list_row(&repo, "auth");
    assert_eq!(row["status"], "stale", "{row}");
    assert_eq!(row["stale_reason"], format!("pid {} is gone", holder.pid));
    let claimed = json(
        &sb.berth_command(&repo, &["claim", "auth", "--json"])
            .output()
            .unwrap(),
    );
    assert_eq!(claimed["reclaimed_stale"], true, "{claimed}");
    sb.berth_ok(&repo, &["remove", "auth"]);
    let report = sb.berth_json(&repo, &["clean", "--json"]);
    assert_eq!(report["worktrees"][0]["name"], "db", "{report}");
    assert_eq!(report["worktrees"][0]["outcome"], "removed", "{report}");
    assert_eq!(git_worktrees(&sb, &repo).len(), 1);
}
