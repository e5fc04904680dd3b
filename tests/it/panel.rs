//! `git berth ui`: the real binary in a pane of a private tmux server, its screen read with
//! `capture-pane` and checked against `list --json --all` and the repository.

use std::path::{Path, PathBuf};

use crate::common::{self, Sandbox, Tmux, sh_quote};

/// A shell in a new window of `tmux`, in `dir`, with the sandbox's environment and the berth
/// under test first on `PATH`: its pane.
fn shell(sb: &Sandbox, tmux: &Tmux, dir: &Path) -> String {
    shell_with(sb, tmux, dir, &[])
}

/// [`shell`], with `extra` variables too.
fn shell_with(sb: &Sandbox, tmux: &Tmux, dir: &Path, extra: &[String]) -> String {
    let path = format!(
        "{}:{}",
        common::berth_bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let env = [
        format!("PATH={path}"),
        format!("HOME={}", sb.home().display()),
        format!("XDG_DATA_HOME={}", sb.data().display()),
        format!("XDG_CONFIG_HOME={}", sb.home().join(".config").display()),
        "GIT_CONFIG_NOSYSTEM=1".to_owned(),
        "LANG=C.UTF-8".to_owned(),
        "TERM=xterm-256color".to_owned(),
        "PS1=ready$ ".to_owned(),
    ];
    let mut args = vec![
        "new-window".to_owned(),
        "-P".to_owned(),
        "-F".to_owned(),
        "#{pane_id}".to_owned(),
        "-c".to_owned(),
        dir.display().to_string(),
        "--".to_owned(),
        "env".to_owned(),
        "-i".to_owned(),
    ];
    args.extend(env);
    args.extend(extra.iter().cloned());
    args.extend(["sh".to_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let pane = tmux.run(&args).trim().to_owned();
    wait_for_screen(tmux, &pane, "the shell's prompt", |s| s.contains("ready$"));
    pane
}

fn screen(tmux: &Tmux, pane: &str) -> String {
    tmux.run(&["capture-pane", "-p", "-t", pane])
}

/// Poll the pane's screen until `done` holds (10 s at most).
fn wait_for_screen(tmux: &Tmux, pane: &str, what: &str, mut done: impl FnMut(&str) -> bool) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let shown = screen(tmux, pane);
        if done(&shown) {
            return;
        }
        assert!(
            std::time::Instant::now() < until,
            "timed out waiting for {what}; the screen:\n{shown}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn keys(tmux: &Tmux, pane: &str, keys: &[&str]) {
    let mut args = vec!["send-keys", "-t", pane];
    args.extend(keys);
    tmux.run(&args);
}

/// The table row of worktree `name` on `shown`: the line whose first word (after the selection
/// mark) is the name.
fn row_of<'a>(shown: &'a str, name: &str) -> Option<&'a str> {
    shown
        .lines()
        .find(|l| l.trim_start_matches("> ").split_whitespace().next() == Some(name))
}

/// A repository with two worktrees, and the panel started on it in a pane, its stdout in
/// `out.txt`: the tmux server, the pane, the repository and that file.
fn panel(sb: &Sandbox) -> Option<(Tmux, String, PathBuf, PathBuf)> {
    let repo = sb.repo("app");
    sb.add(&repo, &["auth"]);
    sb.add(&repo, &["billing"]);
    let tmux = Tmux::start(sb, &repo)?;
    let pane = shell(sb, &tmux, &repo);
    let out = sb.root.join("out.txt");
    keys(
        &tmux,
        &pane,
        &[
            &format!("git berth ui > {}", sh_quote(out.to_str().unwrap())),
            "Enter",
        ],
    );
    wait_for_screen(&tmux, &pane, "the panel's rows", |s| {
        row_of(s, "billing").is_some()
    });
    Some((tmux, pane, repo, out))
}

#[test]
fn the_rows_are_the_worktrees_list_shows_with_their_branches() {
    let sb = Sandbox::new();
    let Some((tmux, pane, repo, _)) = panel(&sb) else {
        return;
    };
    let shown = screen(&tmux, &pane);
    let rows = sb.list_rows(&repo, true);
    assert_eq!(rows.len(), 3);
    for row in rows {
        let name = row["name"].as_str().unwrap();
        let line = row_of(&shown, name).unwrap_or_else(|| panic!("no row {name}:\n{shown}"));
        let branch = row["branch"].as_str().unwrap();
        assert!(line.contains(branch), "{line}");
        if row["kind"] == "primary" {
            assert!(line.contains("[primary] (here)"), "{line}");
        } else {
            assert!(line.contains("clean"), "{line}");
        }
    }
    assert!(shown.contains("3 worktrees"), "{shown}");
}

#[test]
fn a_worktree_added_elsewhere_appears_without_a_key() {
    let sb = Sandbox::new();
    let Some((tmux, pane, repo, _)) = panel(&sb) else {
        return;
    };
    sb.add(&repo, &["x"]);
    wait_for_screen(&tmux, &pane, "the new worktree's row", |s| {
        row_of(s, "x").is_some_and(|l| l.contains("berth/x"))
    });
}

#[test]
fn enter_prints_the_selected_worktrees_path_and_leaves() {
    let sb = Sandbox::new();
    let Some((tmux, pane, repo, out)) = panel(&sb) else {
        return;
    };
    // The primary checkout is first, then auth.
    keys(&tmux, &pane, &["j"]);
    wait_for_screen(&tmux, &pane, "auth selected", |s| {
        s.lines().any(|l| l.starts_with("> auth"))
    });
    keys(&tmux, &pane, &["Enter"]);
    wait_for_screen(&tmux, &pane, "the shell again", |s| {
        s.trim_end().ends_with("ready$")
    });
    let auth = sb.list_row(&repo, "auth");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        format!("{}\n", auth["path"].as_str().unwrap())
    );
}

#[test]
fn q_leaves_and_gives_the_terminal_back() {
    let sb = Sandbox::new();
    let Some((tmux, pane, _, out)) = panel(&sb) else {
        return;
    };
    assert_eq!(tmux.pane_format(&pane, "#{alternate_on}"), "1");
    keys(&tmux, &pane, &["q"]);
    wait_for_screen(&tmux, &pane, "the shell again", |s| {
        s.trim_end().ends_with("ready$")
    });
    assert_eq!(tmux.pane_format(&pane, "#{alternate_on}"), "0");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "");
    // Raw mode is off: the shell echoes what is typed, and runs it on Enter.
    keys(&tmux, &pane, &["echo typed-$((40+2))", "Enter"]);
    wait_for_screen(&tmux, &pane, "the shell to run a line", |s| {
        s.contains("typed-42")
    });
}

#[test]
fn d_shows_the_worktrees_diff_against_its_base() {
    let sb = Sandbox::new();
    let Some((tmux, pane, repo, _)) = panel(&sb) else {
        return;
    };
    let billing = PathBuf::from(sb.list_row(&repo, "billing")["path"].as_str().unwrap());
    sb.commit_file(&billing, "pay.txt", "one\ntwo\n");
    wait_for_screen(&tmux, &pane, "billing one ahead", |s| {
        row_of(s, "billing").is_some_and(|l| l.contains("+1 -0"))
    });
    keys(&tmux, &pane, &["G", "d"]);
    wait_for_screen(&tmux, &pane, "the diff", |s| {
        s.contains("diff of billing") && s.contains("+++ b/pay.txt") && s.contains("+two")
    });
    keys(&tmux, &pane, &["Escape"]);
    wait_for_screen(&tmux, &pane, "the rows again", |s| {
        row_of(s, "auth").is_some()
    });
}

#[test]
fn the_filter_narrows_the_rows_and_esc_clears_it() {
    let sb = Sandbox::new();
    let Some((tmux, pane, _, _)) = panel(&sb) else {
        return;
    };
    keys(&tmux, &pane, &["/", "bill"]);
    wait_for_screen(&tmux, &pane, "only billing", |s| {
        row_of(s, "billing").is_some() && row_of(s, "auth").is_none()
    });
    keys(&tmux, &pane, &["Escape"]);
    wait_for_screen(&tmux, &pane, "every row again", |s| {
        row_of(s, "auth").is_some() && row_of(s, "billing").is_some()
    });
}

#[test]
fn without_a_terminal_it_refuses_in_one_line() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let out = sb
        .berth_command(&repo, &["ui"])
        .stdin(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(common::stdout(&out), "");
    let (line, hint) = common::error_lines(&common::stderr(&out));
    assert_eq!(line, "git berth: git berth ui needs a terminal");
    assert!(hint.unwrap().contains("list --all --json"));
}

#[test]
fn enter_on_a_worktree_with_a_live_agent_brings_its_tmux_tab_to_the_front() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let Some(tmux) = Tmux::start(&sb, &repo) else {
        return;
    };
    sb.git(
        &repo,
        &["config", "berth.runtime.shell.command", "sleep 600"],
    );
    let out = sb
        .berth_command(&repo, &["layer1", "busy", "feat/busy", "shell"])
        .env("TMUX", tmux.env_value())
        .env("TMUX_PANE", &tmux.pane)
        .env(
            "PATH",
            format!(
                "{}:{}",
                common::berth_bin_dir().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::outputs(&out));
    let agents = sb.berth_json(&repo, &["agents", "--json"]);
    let agent_pane = agents["agents"][0]["pane"].as_str().unwrap().to_owned();

    let pane = shell_with(&sb, &tmux, &repo, &[format!("TMUX={}", tmux.env_value())]);
    let printed = sb.root.join("out.txt");
    keys(
        &tmux,
        &pane,
        &[
            &format!("git berth ui > {}", sh_quote(printed.to_str().unwrap())),
            "Enter",
        ],
    );
    wait_for_screen(&tmux, &pane, "the agent's row", |s| {
        row_of(s, "busy").is_some_and(|l| l.contains("busy L1 shell alive"))
    });
    assert_eq!(tmux.pane_format("main:", "#{pane_id}"), pane);
    keys(&tmux, &pane, &["j", "Enter"]);
    common::wait_for("the agent's tab in front", || {
        tmux.pane_format("main:", "#{pane_id}") == agent_pane
    });
    wait_for_screen(&tmux, &pane, "the shell again", |s| {
        s.trim_end().ends_with("ready$")
    });
    assert_eq!(std::fs::read_to_string(&printed).unwrap(), "");
}

/// `panel`, with `name` the only row the filter shows, so that it is the selected one.
fn select(tmux: &Tmux, pane: &str, name: &str) {
    keys(tmux, pane, &["/", name, "Enter"]);
    wait_for_screen(tmux, pane, "only the one row", |s| {
        row_of(s, name).is_some()
            && ["auth", "billing"]
                .iter()
                .all(|o| *o == name || row_of(s, o).is_none())
    });
}

#[test]
fn a_then_s_approves_and_lands_the_worktree_through_the_gate() {
    let sb = Sandbox::new();
    let Some((tmux, pane, repo, _)) = panel(&sb) else {
        return;
    };
    // A gate slow enough to see the panel say it is shipping, and keep drawing meanwhile.
    sb.git(
        &repo,
        &["config", "berth.gate", "sleep 2 && test -f auth.rs"],
    );
    let auth = PathBuf::from(sb.list_row(&repo, "auth")["path"].as_str().unwrap());
    sb.commit_file(&auth, "auth.rs", "fn login() {}\n");
    let work = sb.rev(&auth, "HEAD");
    select(&tmux, &pane, "auth");
    keys(&tmux, &pane, &["a"]);
    wait_for_screen(&tmux, &pane, "the note asked", |s| s.contains("note"));
    keys(&tmux, &pane, &["looks good", "Enter"]);
    wait_for_screen(&tmux, &pane, "the approval said", |s| {
        s.contains("approved")
    });
    let status = sb.berth(&repo, &["review", "status", "--json"]);
    assert!(
        String::from_utf8_lossy(&status.stdout).contains("looks good"),
        "the verdict is recorded with its note: {}",
        String::from_utf8_lossy(&status.stdout)
    );
    keys(&tmux, &pane, &["s"]);
    wait_for_screen(&tmux, &pane, "the confirmation", |s| s.contains("(y/n)"));
    keys(&tmux, &pane, &["y"]);
    wait_for_screen(&tmux, &pane, "the ship's progress", |s| {
        s.contains("shipping auth…")
    });
    // The loop still answers keys while the gate runs: the filter is typed and shown.
    keys(&tmux, &pane, &["/", "x"]);
    wait_for_screen(&tmux, &pane, "a key answered while shipping", |s| {
        s.contains("filter: authx")
    });
    keys(&tmux, &pane, &["BSpace", "Enter", "q"]);
    wait_for_screen(&tmux, &pane, "q refused while shipping", |s| {
        s.contains("still shipping auth")
    });
    wait_for_screen(&tmux, &pane, "the landing said", |s| {
        s.lines().any(|l| l.trim_start().starts_with("landed"))
    });
    let landed = sb.git_output(&repo, &["merge-base", "--is-ancestor", &work, "main"]);
    let content = sb.git(&repo, &["show", "main:auth.rs"]);
    assert!(
        landed.status.success() || content == "fn login() {}\n",
        "the trunk holds the worktree's change"
    );
}

#[test]
fn s_on_an_unapproved_worktree_is_refused_in_the_words_of_ship() {
    let sb = Sandbox::new();
    let Some((tmux, pane, repo, _)) = panel(&sb) else {
        return;
    };
    let auth = PathBuf::from(sb.list_row(&repo, "auth")["path"].as_str().unwrap());
    sb.commit_file(&auth, "auth.rs", "fn login() {}\n");
    let err = sb.berth_err(&repo, &["ship", "auth", "--gate", "true"]);
    let first = err.lines().next().unwrap();
    let first = first.trim_start_matches("git berth: ").to_owned();
    assert!(first.contains("not approved"), "{err}");
    let old = sb.rev(&repo, "main");
    select(&tmux, &pane, "auth");
    keys(&tmux, &pane, &["s"]);
    wait_for_screen(&tmux, &pane, "the confirmation", |s| s.contains("(y/n)"));
    keys(&tmux, &pane, &["y"]);
    let probe: String = first.chars().take(60).collect();
    wait_for_screen(&tmux, &pane, "ship's refusal", |s| s.contains(&probe));
    assert_eq!(sb.rev(&repo, "main"), old, "nothing landed");
}

#[test]
fn n_adds_a_worktree_that_git_lists_and_selects_its_row() {
    let sb = Sandbox::new();
    let Some((tmux, pane, repo, _)) = panel(&sb) else {
        return;
    };
    keys(&tmux, &pane, &["n"]);
    wait_for_screen(&tmux, &pane, "the name asked", |s| {
        s.contains("name of the new worktree")
    });
    keys(&tmux, &pane, &["search", "Enter"]);
    wait_for_screen(&tmux, &pane, "the new row, selected", |s| {
        row_of(s, "search").is_some_and(|l| l.contains("berth/search"))
            && s.lines()
                .any(|l| l.starts_with("> search") || l.trim_start().starts_with("> search"))
    });
    let paths = common::git_worktree_paths(&sb, &repo);
    assert!(
        paths.iter().any(|p| p.ends_with("search")),
        "git worktree list shows it: {paths:?}"
    );
}

#[test]
fn c_shows_the_merge_back_overview() {
    let sb = Sandbox::new();
    let Some((tmux, pane, _, _)) = panel(&sb) else {
        return;
    };
    keys(&tmux, &pane, &["c"]);
    wait_for_screen(&tmux, &pane, "the overview", |s| {
        s.contains("merge-back overview") && s.contains("billing") && s.contains("auth")
    });
    keys(&tmux, &pane, &["Escape"]);
    wait_for_screen(&tmux, &pane, "the rows again", |s| {
        row_of(s, "auth").is_some()
    });
}

#[test]
fn x_rejects_the_head_with_the_note_as_review_reject_records_it() {
    let sb = Sandbox::new();
    let Some((tmux, pane, repo, _)) = panel(&sb) else {
        return;
    };
    select(&tmux, &pane, "billing");
    keys(&tmux, &pane, &["x"]);
    wait_for_screen(&tmux, &pane, "the note asked", |s| {
        s.contains("reject billing")
    });
    keys(&tmux, &pane, &["needs tests", "Enter"]);
    wait_for_screen(&tmux, &pane, "the verdict shown", |s| {
        row_of(s, "billing").is_some_and(|l| l.contains("rejected"))
    });
    let status = sb.berth(&repo, &["review", "status", "billing", "--json"]);
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(
        status.contains("rejected") && status.contains("needs tests"),
        "{status}"
    );
}

#[test]
fn enter_on_a_worktree_with_a_live_herdr_agent_focuses_its_pane_through_herdr() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let Some(tmux) = Tmux::start(&sb, &repo) else {
        return;
    };
    // A stand-in for herdr on PATH: it logs its arguments, answers `tab create` as herdr does and
    // runs what `pane run` types, as the pane's shell would.
    let bin = sb.root.join("herdr-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = sb.root.join("herdr.log");
    std::fs::write(
        bin.join("herdr"),
        format!(
            "#!/bin/sh\n\
             printf '%s\\n' \"$*\" >> {log}\n\
             case \"$1 $2\" in\n\
             'tab create') echo '{{\"result\":{{\"tab\":{{\"tab_id\":\"t9\"}},\"root_pane\":{{\"pane_id\":\"p9\"}}}}}}' ;;\n\
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
    let path = format!(
        "{}:{}:{}",
        bin.display(),
        common::berth_bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    sb.git(
        &repo,
        &["config", "berth.runtime.shell.command", "sleep 20"],
    );
    let out = sb
        .berth_command(&repo, &["layer1", "busy", "feat/busy", "shell"])
        .env("PATH", &path)
        .env("HERDR_ENV", "1")
        .env("HERDR_PANE_ID", "p1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::outputs(&out));
    common::wait_for("the agent alive", || {
        sb.berth_json(&repo, &["agents", "--json"])["agents"][0]["status"] == "alive"
    });

    let pane = shell_with(
        &sb,
        &tmux,
        &repo,
        &[format!("PATH={path}"), "HERDR_ENV=1".to_owned()],
    );
    let printed = sb.root.join("out.txt");
    keys(
        &tmux,
        &pane,
        &[
            &format!("git berth ui > {}", sh_quote(printed.to_str().unwrap())),
            "Enter",
        ],
    );
    wait_for_screen(&tmux, &pane, "the agent's row", |s| {
        row_of(s, "busy").is_some_and(|l| l.contains("alive"))
    });
    keys(&tmux, &pane, &["j", "Enter"]);
    wait_for_screen(&tmux, &pane, "the shell again", |s| {
        s.trim_end().ends_with("ready$")
    });
    let said = std::fs::read_to_string(&log).unwrap();
    assert!(said.lines().any(|l| l == "agent focus p9"), "{said}");
    assert_eq!(std::fs::read_to_string(&printed).unwrap(), "");
}
