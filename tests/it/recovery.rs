//! Recovery from a kill at any step: a `remove` killed between deleting the checkout and git's
//! admin entry is finished by the next `clean`, `prune` or `remove`, and the name can be added
//! again. Real processes, SIGKILL, and real `git worktree list` to check what is left.

use crate::common;

use std::path::Path;

use common::{Sandbox, git_worktree_at, git_worktrees, stderr, stdout};
use serde_json::Value;

/// A `remove` of `name` stopped at its pause point (the checkout deleted, git's admin entry not
/// yet), then killed with SIGKILL.
fn remove_killed_midway(sb: &Sandbox, repo: &Path, name: &str, extra: &[&str]) {
    let mut args = vec!["remove", name];
    args.extend_from_slice(extra);
    let mut cmd = sb.berth_command(repo, &args);
    cmd.env("BERTH_TEST_PAUSE_REMOVE_MS", "30000");
    let (mut child, _err) = common::spawn_until_paused(cmd);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
}

/// What a killed remove leaves: the folder gone, git still listing it (as prunable), and the
/// record still registered, marked as being removed.
fn half_removed(sb: &Sandbox, repo: &Path, name: &str, path: &Path) {
    assert!(
        !path.exists(),
        "the checkout was deleted: {}",
        path.display()
    );
    let wt = git_worktree_at(sb, repo, path).expect("git still lists the worktree");
    assert!(wt.prunable, "{wt:?}");
    let registry = std::fs::read_to_string(sb.registry_path(repo)).unwrap();
    assert!(
        registry.contains("[[removing]]") && registry.contains(&format!("name = \"{name}\"")),
        "{registry}"
    );
}

/// Nothing of `name` is left but its branch: no record, no folder, no admin entry. The branch
/// stays with `branch_kept`; else (`clean`, `prune`) it went, its work being all on the trunk.
fn finished(sb: &Sandbox, repo: &Path, name: &str, path: &Path, branch_kept: bool) {
    assert!(!path.exists(), "{}", path.display());
    assert!(git_worktree_at(sb, repo, path).is_none(), "git forgot it");
    assert!(
        sb.list_rows(repo, false).iter().all(|r| r["name"] != name),
        "berth forgot it"
    );
    let registry = std::fs::read_to_string(sb.registry_path(repo)).unwrap_or_default();
    assert!(!registry.contains("[[removing]]"), "{registry}");
    assert_eq!(
        sb.git(repo, &["worktree", "prune", "--dry-run", "-v"]),
        "",
        "git finds nothing to prune"
    );
    assert_eq!(
        sb.has_branch(repo, &format!("berth/{name}")),
        branch_kept,
        "branch kept"
    );
}

/// `add` of `name` works again, on its branch, and git knows the new worktree.
fn added_again(sb: &Sandbox, repo: &Path, name: &str, path: &Path) {
    let again = sb.add(repo, &[name]);
    assert_eq!(again, path);
    let wt = git_worktree_at(sb, repo, path).expect("git knows the new worktree");
    assert_eq!(wt.branch, Some(format!("refs/heads/berth/{name}")));
    assert!(!wt.prunable);
    assert_eq!(sb.status(path), "");
}

/// `clean --json`'s outcome and reason for `name`.
fn outcome_of(report: &Value, name: &str) -> (String, Value) {
    let row = report["worktrees"]
        .as_array()
        .and_then(|rows| rows.iter().find(|w| w["name"] == name))
        .unwrap_or_else(|| panic!("no {name} in {report}"));
    (
        row["outcome"].as_str().unwrap().to_owned(),
        row["reason"].clone(),
    )
}

#[test]
fn clean_finishes_a_killed_remove_and_keeps_going_past_a_broken_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let auth = sb.add(&repo, &["auth"]);
    let done = sb.add(&repo, &["done"]);
    let broken = sb.add(&repo, &["broken"]);
    for name in ["auth", "done", "broken"] {
        sb.berth_ok(&repo, &["release", name]);
    }
    std::fs::remove_file(broken.join(".git")).unwrap();
    remove_killed_midway(&sb, &repo, "auth", &[]);
    half_removed(&sb, &repo, "auth", &auth);

    let out = sb.berth(&repo, &["clean", "--json"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let removed = ("removed".to_owned(), Value::Null);
    assert_eq!(outcome_of(&report, "auth"), removed);
    assert_eq!(outcome_of(&report, "done"), removed);
    assert_eq!(
        outcome_of(&report, "broken"),
        (
            "kept".to_owned(),
            Value::from("broken: its .git is missing")
        )
    );
    assert!(
        stderr(&out).contains("hint: delete what is left with git berth remove --force 'broken'"),
        "{}",
        stderr(&out)
    );
    finished(&sb, &repo, "auth", &auth, false);
    assert!(!done.exists());
    assert!(broken.join("README.md").exists(), "a broken one is kept");
    added_again(&sb, &repo, "auth", &auth);
}

#[test]
fn prune_finishes_a_killed_remove_frees_its_ports_and_the_name_can_be_added_again() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.port_range(&repo, 31000, 4);
    sb.install(&repo, &["--ports", "10"]);
    sb.commit_all(&repo, "ports");
    let auth = sb.add(&repo, &["auth"]);
    assert!(sb.ports_file().contains("name = \"auth\""));
    remove_killed_midway(&sb, &repo, "auth", &[]);
    half_removed(&sb, &repo, "auth", &auth);

    let dry = sb.berth_ok(&repo, &["prune", "--dry-run"]);
    assert!(
        dry.contains("would remove worktree 'auth': an earlier remove was cut short"),
        "{dry}"
    );
    let out = sb.berth(&repo, &["prune"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(
        stdout(&out).contains("removed worktree 'auth': an earlier remove was cut short"),
        "{}",
        common::outputs(&out)
    );
    finished(&sb, &repo, "auth", &auth, false);
    assert!(!sb.ports_file().contains("name = \"auth\""), "block freed");
    added_again(&sb, &repo, "auth", &auth);
}

#[test]
fn remove_of_the_name_again_finishes_a_killed_remove() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let auth = sb.add(&repo, &["auth"]);
    let other = sb.add(&repo, &["other"]);
    remove_killed_midway(&sb, &repo, "auth", &["--force"]);
    half_removed(&sb, &repo, "auth", &auth);

    let out = sb.berth(&repo, &["remove", "auth"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(
        stderr(&out).contains("removed worktree 'auth'"),
        "{}",
        stderr(&out)
    );
    finished(&sb, &repo, "auth", &auth, true);
    assert!(git_worktree_at(&sb, &repo, &other).is_some(), "others stay");
    assert_eq!(git_worktrees(&sb, &repo).len(), 2);
    added_again(&sb, &repo, "auth", &auth);
}

#[test]
fn any_other_command_that_takes_the_lock_finishes_a_killed_remove_too() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let auth = sb.add(&repo, &["auth"]);
    sb.add(&repo, &["other"]);
    remove_killed_midway(&sb, &repo, "auth", &[]);

    let out = sb.berth(&repo, &["release", "other"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(
        stderr(&out).contains("finished removing worktree 'auth'"),
        "{}",
        stderr(&out)
    );
    finished(&sb, &repo, "auth", &auth, true);
}

#[test]
fn a_remove_killed_before_it_deleted_anything_leaves_the_worktree_whole() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let auth = sb.add(&repo, &["auth"]);
    // The mark written as `remove` writes it, with nothing deleted yet.
    let registry = sb.registry_path(&repo);
    let text = std::fs::read_to_string(&registry).unwrap();
    let created = text
        .lines()
        .find_map(|l| l.strip_prefix("created = "))
        .unwrap()
        .to_owned();
    std::fs::write(
        &registry,
        format!("{text}\n[[removing]]\nname = \"auth\"\ncreated = {created}\n"),
    )
    .unwrap();

    let out = sb.berth(&repo, &["prune"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(auth.join(".git").exists());
    assert!(git_worktree_at(&sb, &repo, &auth).is_some_and(|w| !w.prunable));
    assert_eq!(sb.list_row(&repo, "auth")["state"], "ok");
    let text = std::fs::read_to_string(&registry).unwrap();
    assert!(
        !text.contains("[[removing]]"),
        "the mark is dropped: {text}"
    );
}

/// Make `cmd` bound by file permissions even as root (as CI runs): before it starts, drop
/// CAP_DAC_OVERRIDE (1) and CAP_DAC_READ_SEARCH (2) from its capability bounding set, so a
/// chmod'ed folder is read-only to it as to anyone. Where that is not allowed it changes nothing.
/// std offers a step between fork and exec only as an unsafe call: the test's one `unsafe`.
#[allow(
    unsafe_code,
    reason = "std offers the step between fork and exec only as unsafe"
)]
fn bound_by_permissions(cmd: &mut std::process::Command) -> &mut std::process::Command {
    use rustix::thread::{CapabilitySet, remove_capability_from_bounding_set};
    use std::os::unix::process::CommandExt as _;
    // SAFETY: two prctl(2) calls that rustix makes directly, which allocate nothing and take no
    // lock, between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            for cap in [CapabilitySet::DAC_OVERRIDE, CapabilitySet::DAC_READ_SEARCH] {
                let _ = remove_capability_from_bounding_set(cap);
            }
            Ok(())
        })
    }
}

/// Whether a command started as [`bound_by_permissions`] cannot create a file in `dir`.
fn read_only_to_berth(dir: &Path) -> bool {
    let probe = dir.join("probe");
    let mut touch = std::process::Command::new("touch");
    touch.arg(&probe);
    let wrote = bound_by_permissions(&mut touch)
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .success();
    let _ = std::fs::remove_file(&probe);
    !wrote
}

fn berth_bound(sb: &Sandbox, repo: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = sb.berth_command(repo, args);
    bound_by_permissions(&mut cmd).output().unwrap()
}

#[test]
fn remove_and_clean_refuse_before_destroying_anything_when_the_registry_cannot_be_written() {
    use std::os::unix::fs::PermissionsExt as _;
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let marker = sb.root.join("torn-down");
    let teardown = format!("touch {}", common::sh_quote(marker.to_str().unwrap()));
    sb.install(&repo, &["--teardown", &teardown]);
    sb.commit_all(&repo, "teardown");
    let auth = sb.add(&repo, &["auth"]);
    sb.berth_ok(&repo, &["release", "auth"]);
    let state = sb.common_dir(&repo).join("berth");
    let before = sb.state(&repo);
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o555)).unwrap();
    if !read_only_to_berth(&state) {
        std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o755)).unwrap();
        eprintln!("skipped: chmod does not bind here (root with its capabilities)");
        return;
    }

    for args in [
        &["remove", "auth"][..],
        &["remove", "--force", "auth"],
        &["clean"],
    ] {
        let out = berth_bound(&sb, &repo, args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?}: {}",
            common::outputs(&out)
        );
        let err = stderr(&out);
        let (line, hint) = common::error_lines(&err);
        assert!(
            line.starts_with("git berth: cannot write the registry ")
                && line.ends_with(": permission denied; nothing was removed"),
            "{args:?}: {err}"
        );
        assert_eq!(
            hint.as_deref(),
            Some(format!("hint: make {} writable, then run it again", state.display()).as_str()),
            "{err}"
        );
        assert_eq!(err.lines().count(), 2, "{err}");
    }
    assert!(!marker.exists(), "no teardown ran");
    assert!(git_worktree_at(&sb, &repo, &auth).is_some_and(|w| !w.prunable));
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(sb.state(&repo), before, "nothing changed");

    sb.berth_ok(&repo, &["remove", "auth"]);
    assert!(!auth.exists());
    assert!(marker.exists());
}

/// The temp files of berth's state files left in `dir` (`.<file>.tmp.<pid>`).
fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".tmp."))
                .collect()
        })
        .unwrap_or_default()
}

/// Kills at random short delays, over commands that write the registry (claim, release) and the
/// ports file too (remove of a worktree with a block). Not over `add`: a kill inside its rollback's
/// branch deletion leaves `.git/config.lock` (gix locks the config to drop `branch.<name>`), which
/// is not berth's state file.
#[test]
fn a_kill_loop_over_claim_release_and_remove_leaves_no_temp_file_after_the_next_command() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.port_range(&repo, 32000, 100);
    sb.install(&repo, &["--ports", "10"]);
    sb.commit_all(&repo, "ports");
    sb.add(&repo, &["auth"]);
    for i in 0..10 {
        sb.add(&repo, &[&format!("w{i}")]);
    }
    let mut next_delay = random_delays(15_000);
    for i in 0..30 {
        let name = format!("w{}", i / 3);
        let args: Vec<&str> = match i % 3 {
            0 => vec!["--session", "s1", "claim", "auth"],
            1 => vec!["--session", "s1", "release", "auth"],
            _ => vec!["remove", "--force", &name],
        };
        kill_after(&sb, &repo, &args, next_delay());
    }
    // Whatever the kills hit, also leave one temp file of a dead writer beside each state file.
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let state = sb.common_dir(&repo).join("berth");
    std::fs::write(state.join(format!(".registry.toml.tmp.{dead}")), "half").unwrap();
    std::fs::write(
        sb.worktrees().join(format!(".ports.toml.tmp.{dead}")),
        "half",
    )
    .unwrap();

    sb.add(&repo, &["next"]);

    assert_eq!(temp_files(&state), Vec::<String>::new());
    assert_eq!(temp_files(&sb.worktrees()), Vec::<String>::new());
    // And the removals the kills cut short are finished by the next command that locks.
    sb.berth_ok(&repo, &["prune"]);
    let rows = sb.list_rows(&repo, false);
    assert!(rows.iter().all(|r| r["state"] == "ok"), "{rows:?}");
    assert_eq!(
        sb.git(&repo, &["worktree", "prune", "--dry-run", "-v"]),
        "",
        "git finds nothing to prune"
    );
    assert_eq!(git_worktrees(&sb, &repo).len(), rows.len() + 1);
}

/// Wait (at most 10 s) for `path` to hold a whole line; its text.
fn wait_for_line(path: &Path) -> String {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.ends_with('\n')
        {
            return text;
        }
        assert!(
            std::time::Instant::now() < until,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Whether no live process (zombies aside) is left in process group `group`.
fn group_gone(group: u32) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().all(|entry| {
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let Some((_, rest)) = stat.rsplit_once(')') else {
            return true;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        fields.first() == Some(&"Z") || fields.get(2) != Some(&group.to_string().as_str())
    })
}

#[test]
fn a_setup_hook_dies_with_a_killed_berth_and_never_finishes() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let started = sb.root.join("started");
    let marker = sb.root.join("finished");
    // The hook's shell starts a `sleep` and writes the marker after it: both must die with berth.
    let setup = format!(
        "echo $$ > {}; sleep 1; touch {}",
        common::sh_quote(started.to_str().unwrap()),
        common::sh_quote(marker.to_str().unwrap())
    );
    sb.install(&repo, &["--setup", &setup]);
    sb.commit_all(&repo, "setup");
    let mut berth = sb
        .berth_command(&repo, &["add", "auth"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let group: u32 = wait_for_line(&started).trim().parse().unwrap();
    let hook_started = std::time::Instant::now();

    berth.kill().unwrap(); // SIGKILL: no handler of berth's runs
    berth.wait().unwrap();

    let until = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while !group_gone(group) && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(common::process_gone(group), "the hook's shell is gone");
    assert!(group_gone(group), "and so is all it started");
    // Past the time the hook would have written its marker.
    std::thread::sleep(
        std::time::Duration::from_millis(1300).saturating_sub(hook_started.elapsed()),
    );
    assert!(!marker.exists(), "the hook never finished");
}

#[test]
fn a_setup_result_is_saved_only_for_the_worktree_it_ran_for() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let started = sb.root.join("started");
    let setup = format!(
        "echo $$ > {}; sleep 1",
        common::sh_quote(started.to_str().unwrap())
    );
    sb.install(&repo, &["--setup", &setup]);
    sb.commit_all(&repo, "setup");
    let first = sb
        .berth_command(&repo, &["add", "auth"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_line(&started);

    // While its setup runs, another agent removes the worktree and makes one of the same name.
    let agent = common::Agent::spawn();
    let out = sb.berth_as(&repo, "s2", agent.pid(), &["remove", "--force", "auth"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let out = sb.berth_as(&repo, "s2", agent.pid(), &["add", "auth", "--no-setup"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    common::wait_at_most(first, std::time::Duration::from_secs(10));

    let row = sb.list_row(&repo, "auth");
    assert_eq!(row["claimed_by"], "s2", "{row}");
    assert_eq!(
        row["setup"], "pending",
        "the first setup's result is not the new one's: {row}"
    );
}

/// No Rust debug text in either stream: every error is words.
fn in_words(out: &std::process::Output) {
    let text = common::outputs(out);
    for debug in ["Message {", "Caused by", "Os {", "os error", "kind: "] {
        assert!(!text.contains(debug), "{debug:?} in {text}");
    }
}

/// An error of exactly one line and a hint, exit `code`; both returned.
fn one_line_and_a_hint(out: &std::process::Output, code: i32) -> (String, String) {
    in_words(out);
    assert_eq!(out.status.code(), Some(code), "{}", common::outputs(out));
    let err = stderr(out);
    assert_eq!(err.lines().count(), 2, "{err}");
    let (line, hint) = common::error_lines(&err);
    let hint = hint.unwrap();
    assert!(
        line.starts_with("git berth: ") && hint.starts_with("hint: "),
        "{err}"
    );
    (line, hint)
}

#[test]
fn a_worktree_whose_git_file_was_deleted_is_named_with_a_way_out_in_one_line() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let auth = sb.add(&repo, &["auth"]);
    let kept = sb.add(&repo, &["kept"]);
    let done = sb.add(&repo, &["done"]);
    std::fs::remove_file(auth.join(".git")).unwrap();
    std::fs::remove_file(kept.join(".git")).unwrap();

    let out = sb.berth(&repo, &["list"]);
    in_words(&out);
    assert!(out.status.success());
    assert_eq!(sb.list_row(&repo, "auth")["state"], "missing");

    for args in [&["remove", "auth"][..], &["setup", "auth"]] {
        let (line, hint) = one_line_and_a_hint(&sb.berth(&repo, args), 1);
        assert_eq!(
            line,
            format!(
                "git berth: worktree 'auth' is broken: its .git is missing ({})",
                auth.display()
            ),
            "{args:?}"
        );
        assert!(
            hint.contains("git berth remove --force 'auth'") && hint.contains("git berth prune"),
            "{hint}"
        );
    }

    let out = sb.berth(&repo, &["clean"]);
    in_words(&out);
    assert!(out.status.success(), "{}", common::outputs(&out));
    let table = stdout(&out);
    assert!(
        table.contains("auth  broken: its .git is missing") && table.contains("removed      done"),
        "{table}"
    );
    assert!(stderr(&out).starts_with("hint: "), "{}", stderr(&out));
    assert!(!done.exists(), "one broken worktree does not stop clean");

    // The two ways out: delete what is left, or forget it and keep the files.
    let out = sb.berth(&repo, &["remove", "--force", "auth"]);
    in_words(&out);
    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(!auth.exists());
    assert!(git_worktree_at(&sb, &repo, &auth).is_none());
    let out = sb.berth(&repo, &["prune"]);
    in_words(&out);
    assert!(
        stdout(&out).contains("forgot worktree 'kept'") && stdout(&out).contains("its files stay"),
        "{}",
        common::outputs(&out)
    );
    assert!(kept.join("README.md").exists(), "prune deletes nothing");
    assert!(git_worktree_at(&sb, &repo, &kept).is_none());
    assert!(sb.list_rows(&repo, false).is_empty());
    added_again(&sb, &repo, "auth", &auth);
}

#[test]
fn add_of_the_name_finishes_a_killed_remove_itself() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let auth = sb.add(&repo, &["auth"]);
    sb.berth_ok(&repo, &["release", "auth"]);
    remove_killed_midway(&sb, &repo, "auth", &[]);
    half_removed(&sb, &repo, "auth", &auth);
    let out = sb.berth(&repo, &["add", "auth"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    assert!(
        stderr(&out).contains("finished removing worktree 'auth'"),
        "{}",
        stderr(&out)
    );
    assert!(auth.join(".git").is_file());
}

/// `add`s killed at random points (12 kills over 4 names) leave nothing the next `add` of each
/// name trips on: no temp file, no ref lock, no config lock.
#[test]
fn a_kill_loop_over_add_leaves_no_temp_file_or_lock_after_the_next_add() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let mut next_delay = random_delays(25_000);
    for i in 0..12 {
        let name = format!("k{}", i % 4);
        kill_after(&sb, &repo, &["add", &name], next_delay());
    }
    for i in 0..4 {
        let out = sb.berth(&repo, &["add", &format!("k{i}")]);
        assert!(out.status.success(), "k{i}: {}", common::outputs(&out));
    }
    let common_dir = sb.common_dir(&repo);
    assert_eq!(temp_files(&common_dir.join("berth")), Vec::<String>::new());
    assert!(!common_dir.join("config.lock").exists());
    let locks: Vec<_> = std::fs::read_dir(common_dir.join("refs/heads/berth"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".lock"))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(locks, Vec::<String>::new());
    let rows = sb.list_rows(&repo, false);
    assert!(rows.iter().all(|r| r["state"] == "ok"), "{rows:?}");
}

/// Short pseudo-random delays below `max_micros` (no dependency for two tests): an LCG seeded by
/// the clock, so each run kills at other points.
fn random_delays(max_micros: u64) -> impl FnMut() -> std::time::Duration {
    let mut seed = u64::from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos(),
    );
    move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        std::time::Duration::from_micros((seed >> 33) % max_micros)
    }
}

/// Start `git-berth <args>` and SIGKILL it after `delay`, wherever it is.
fn kill_after(sb: &Sandbox, repo: &Path, args: &[&str], delay: std::time::Duration) {
    let mut child = sb
        .berth_command(repo, args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    let _ = child.kill(); // SIGKILL
    child.wait().unwrap();
}

/// `args` in `repo` fails with one `corrupt <what> <path>: <reason>` line and its hint.
fn refused_as_corrupt(
    sb: &Sandbox,
    repo: &Path,
    args: &[&str],
    what: &str,
    path: &Path,
    reason: &str,
) {
    let out = sb.berth(repo, args);
    let (first, hint) = one_line_and_a_hint(&out, 78);
    assert_eq!(
        first,
        format!("git berth: corrupt {what} {}: {reason}", path.display())
    );
    assert!(hint.contains("never rewrites it"), "{hint}");
}

#[test]
fn an_empty_or_version_less_registry_is_refused_by_name_and_left_as_it_was() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add(&repo, &["a"]);
    let path = sb.registry_path(&repo);
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.starts_with("version = "), "{written}");
    let version_less: String = written
        .lines()
        .filter(|l| !l.starts_with("version = "))
        .map(|l| format!("{l}\n"))
        .collect();
    let no_version = "it has no `version` key, which every file git berth writes holds";
    for (text, reason) in [
        ("", "the file is empty"),
        ("\n  \n", "the file is empty"),
        (version_less.as_str(), no_version),
    ] {
        std::fs::write(&path, text).unwrap();
        for args in [&["list"][..], &["add", "b"], &["remove", "a"]] {
            refused_as_corrupt(&sb, &repo, args, "registry", &path, reason);
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert!(!sb.has_branch(&repo, "berth/b"), "nothing was added");
    }
}

#[test]
fn an_empty_port_book_is_refused_and_no_block_is_handed_out() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.port_range(&repo, 31500, 4);
    sb.install(&repo, &["--ports", "2"]);
    sb.commit_all(&repo, "ports");
    let book = sb.worktrees().join("ports.toml");
    std::fs::create_dir_all(book.parent().unwrap()).unwrap();
    std::fs::write(&book, "").unwrap();

    refused_as_corrupt(
        &sb,
        &repo,
        &["add", "w"],
        "port blocks",
        &book,
        "the file is empty",
    );

    assert_eq!(std::fs::read_to_string(&book).unwrap(), "");
    let names: Vec<String> = sb
        .list_rows(&repo, false)
        .iter()
        .map(|r| r["name"].to_string())
        .collect();
    assert!(names.is_empty(), "{names:?}");
}
