//! `git berth list` and `git berth path`, checked against what real git did to the worktrees.

use crate::common;

use std::path::Path;

use common::{Sandbox, error_lines};

const FIELDS: [&str; 14] = [
    "ahead", "base", "base_ref", "behind", "branch", "created", "current", "dirty", "head", "kind",
    "locked", "name", "path", "state",
];

#[test]
fn list_prints_a_table_with_a_header_and_one_row_per_worktree() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let auth = sb.add(&repo, &["auth"]);
    let ui = sb.add(&repo, &["ui"]);

    let out = sb.berth_ok(&repo, &["list"]);

    let header: Vec<&str> = out.lines().next().unwrap().split_whitespace().collect();
    let order: Vec<&str> = header
        .iter()
        .copied()
        .filter(|h| ["NAME", "BRANCH", "BASE", "AHEAD", "STATE", "PATH"].contains(h))
        .collect();
    assert_eq!(
        order,
        ["NAME", "BRANCH", "BASE", "AHEAD", "STATE", "PATH"],
        "{out}"
    );
    assert_eq!(header.first(), Some(&"NAME"));
    assert_eq!(header.last(), Some(&"PATH"));
    let rows = common::table_rows(&out);
    assert_eq!(rows.len(), 2, "{out}");
    let (marker, auth_row) = &rows[0];
    assert_eq!(marker, "");
    assert_eq!(auth_row["NAME"], "auth");
    assert_eq!(auth_row["BRANCH"], "berth/auth");
    assert!(auth_row["BASE"].starts_with("main@"), "{out}");
    assert_eq!(auth_row["AHEAD"], "+0 -0");
    assert_eq!(auth_row["STATE"], "clean");
    assert_eq!(auth_row["PATH"], auth.to_str().unwrap());
    assert_eq!(rows[1].0, "");
    assert_eq!(rows[1].1["NAME"], "ui");
    assert_eq!(rows[1].1["PATH"], ui.to_str().unwrap());
    assert_eq!(out, sb.berth_ok(&repo, &["ls"]), "ls is list");
}

#[test]
fn list_json_is_an_object_of_worktrees_with_every_documented_field() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let head = sb.rev(&repo, "HEAD");
    let path = sb.add(&repo, &["auth"]);

    let value = sb.berth_json(&repo, &["list", "--json"]);

    let object = value.as_object().unwrap();
    assert_eq!(object.keys().collect::<Vec<_>>(), ["worktrees"]);
    let rows = value["worktrees"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    let row = rows[0].as_object().unwrap();
    for field in FIELDS {
        assert!(row.contains_key(field), "{field} is missing from {row:?}");
    }
    let row = &rows[0];
    assert_eq!(row["name"], "auth");
    assert_eq!(row["kind"], "managed");
    assert_eq!(row["state"], "ok");
    assert_eq!(row["path"], path.to_str().unwrap());
    assert_eq!(row["branch"], "berth/auth");
    assert_eq!(row["head"], head.as_str());
    assert_eq!(row["base"], head.as_str());
    assert_eq!(row["base_ref"], "main");
    assert_eq!(row["ahead"], 0);
    assert_eq!(row["behind"], 0);
    assert_eq!(row["dirty"], false);
    assert_eq!(row["locked"], false);
    assert_eq!(row["current"], false);
    let created = row["created"].as_u64().expect("created is a number");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(created <= now && now - created < 600, "created {created}");
}

#[test]
fn list_json_of_no_worktrees_is_an_empty_array() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");

    let value = sb.berth_json(&repo, &["list", "--json"]);

    assert_eq!(value, serde_json::json!({ "worktrees": [] }));
}

#[test]
fn list_marks_a_modified_tracked_file_as_dirty() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["w"]);
    std::fs::write(path.join("README.md"), "changed\n").unwrap();
    assert_ne!(sb.status(&path), "", "git sees the change");

    assert_eq!(sb.list_row(&repo, "w")["dirty"], true);
}

#[test]
fn list_marks_a_staged_change_as_dirty() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["w"]);
    std::fs::write(path.join("new.txt"), "new\n").unwrap();
    sb.git(&path, &["add", "new.txt"]);

    assert_eq!(sb.list_row(&repo, "w")["dirty"], true);
}

#[test]
fn list_marks_an_untracked_file_as_dirty() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["w"]);
    std::fs::create_dir_all(path.join("deep/er")).unwrap();
    std::fs::write(path.join("deep/er/new.txt"), "new\n").unwrap();
    assert_eq!(sb.status(&path), "?? deep/\n");

    assert_eq!(sb.list_row(&repo, "w")["dirty"], true);
    let table = sb.berth_ok(&repo, &["list"]);
    assert!(table.lines().nth(1).unwrap().contains(" dirty "), "{table}");
}

#[test]
fn list_does_not_count_an_ignored_file_as_dirty() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["w"]);
    std::fs::create_dir_all(path.join("target/debug")).unwrap();
    std::fs::write(path.join("target/debug/app"), "binary\n").unwrap();
    assert_eq!(sb.status(&path), "", "git ignores it");

    assert_eq!(sb.list_row(&repo, "w")["dirty"], false);
}

#[test]
fn list_counts_commits_made_in_the_worktree_as_ahead() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["w"]);
    sb.commit_file(&path, "a.txt", "a\n");
    sb.commit_file(&path, "b.txt", "b\n");

    let row = sb.list_row(&repo, "w");

    assert_eq!(row["ahead"], 2);
    assert_eq!(row["behind"], 0);
    assert_eq!(row["head"], sb.rev(&path, "HEAD").as_str());
    assert_eq!(row["dirty"], false);
    let table = sb.berth_ok(&repo, &["list"]);
    assert!(table.contains(" +2 -0 "), "{table}");
}

#[test]
fn list_counts_commits_on_the_base_branch_since_as_behind() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["w"]);
    sb.commit_file(&path, "mine.txt", "a\n");
    sb.commit_file(&repo, "theirs.txt", "b\n");
    sb.commit_file(&repo, "theirs2.txt", "c\n");

    let row = sb.list_row(&repo, "w");

    assert_eq!(row["ahead"], 1);
    assert_eq!(row["behind"], 2);
}

#[test]
fn list_shows_nothing_ahead_for_a_worktree_made_from_a_relative_base() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.commit_file(&repo, "two.txt", "2\n");
    sb.commit_file(&repo, "three.txt", "3\n");
    sb.add(&repo, &["old", "--base", "HEAD~1"]);

    let row = sb.list_row(&repo, "old");

    assert_eq!(row["ahead"], 0, "no commit was made in it: {row}");
}

#[test]
fn list_counts_commits_ahead_of_a_detached_head_base() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.git(&repo, &["checkout", "-q", "--detach"]);
    let path = sb.add(&repo, &["det"]);
    sb.commit_file(&path, "work.txt", "w\n");

    let row = sb.list_row(&repo, "det");

    assert_eq!(row["ahead"], 1, "{row}");
}

#[test]
fn list_marks_the_worktree_you_stand_in() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let one = sb.add(&repo, &["one"]);
    sb.add(&repo, &["two"]);

    for dir in [one.clone(), one.join("src")] {
        let rows = sb.list_rows(&dir, false);
        let current: Vec<&str> = rows
            .iter()
            .filter(|r| r["current"] == true)
            .map(|r| r["name"].as_str().unwrap())
            .collect();
        assert_eq!(current, ["one"], "from {}", dir.display());

        let table = sb.berth_ok(&dir, &["list"]);
        let marked: Vec<&str> = table.lines().filter(|l| l.starts_with("* ")).collect();
        assert_eq!(marked.len(), 1, "{table}");
        assert!(marked[0][2..].starts_with("one "), "{table}");
    }

    let from_primary = sb.list_rows(&repo, false);
    assert!(from_primary.iter().all(|r| r["current"] == false));
}

#[test]
fn list_all_adds_the_primary_checkout_and_unmanaged_worktrees() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let managed = sb.add(&repo, &["auth"]);
    let other = sb.root.join("other");
    sb.worktree_by_hand(&repo, "manual", &other);

    let plain = sb.list_rows(&repo, false);
    assert_eq!(plain.len(), 1, "without --all only managed: {plain:?}");

    let rows = sb.list_rows(&repo, true);
    let by_path = |p: &Path| {
        rows.iter()
            .find(|r| r["path"] == p.to_str().unwrap())
            .unwrap_or_else(|| panic!("no row for {} in {rows:?}", p.display()))
    };
    assert_eq!(rows.len(), 3, "{rows:?}");
    let primary = by_path(&repo);
    assert_eq!(primary["kind"], "primary");
    assert_eq!(primary["current"], true);
    assert_eq!(primary["branch"], "main");
    assert_eq!(by_path(&managed)["kind"], "managed");
    let unmanaged = by_path(&other);
    assert_eq!(unmanaged["kind"], "unmanaged");
    assert_eq!(unmanaged["state"], "ok");
    assert_eq!(unmanaged["branch"], "manual");
    assert_eq!(unmanaged["dirty"], false);

    let table = sb.berth_ok(&repo, &["list", "--all"]);
    assert!(
        table
            .lines()
            .any(|l| l.contains("unmanaged") && l.contains(other.to_str().unwrap())),
        "{table}"
    );
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("* ") && l.contains("primary")),
        "{table}"
    );
}

#[test]
fn list_shows_a_worktree_removed_by_real_git_as_missing() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["gone"]);
    sb.add(&repo, &["kept"]);
    sb.git(&repo, &["worktree", "remove", path.to_str().unwrap()]);
    assert!(!path.exists());

    let row = sb.list_row(&repo, "gone");

    assert_eq!(row["state"], "missing");
    assert_eq!(row["dirty"], serde_json::Value::Null);
    assert_eq!(sb.list_row(&repo, "kept")["state"], "ok");
    let table = sb.berth_ok(&repo, &["list"]);
    assert!(
        table
            .lines()
            .any(|l| l.contains("gone") && l.contains("missing")),
        "{table}"
    );
}

#[test]
fn list_shows_a_worktree_whose_folder_was_deleted_as_missing() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["gone"]);
    std::fs::remove_dir_all(&path).unwrap();

    assert_eq!(sb.list_row(&repo, "gone")["state"], "missing");
}

#[test]
fn list_shows_a_lock_made_by_real_git() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["held"]);
    sb.git(&repo, &["worktree", "lock", path.to_str().unwrap()]);

    assert_eq!(sb.list_row(&repo, "held")["locked"], true);
}

#[test]
fn path_prints_the_path_alone() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["feat/login"]);

    let out = sb.berth_ok(&repo, &["path", "feat/login"]);
    assert_eq!(out, format!("{}\n", path.display()));

    // The slug finds it too, and so does any worktree of the repository.
    assert_eq!(sb.berth_ok(&path, &["path", "feat-login"]), out);
}

#[test]
fn path_refuses_an_unknown_name_with_a_hint() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add(&repo, &["auth"]);

    let out = sb.berth(&repo, &["path", "x"]);

    assert_eq!(out.status.code(), Some(1));
    assert_eq!(common::stdout(&out), "", "nothing on stdout");
    let err = common::stderr(&out);
    let (first, hint) = error_lines(&err);
    assert_eq!(first, "git berth: no worktree named 'x'");
    let hint = hint.expect("a hint line");
    assert!(
        hint.starts_with("hint: ") && hint.contains("git berth list"),
        "{err}"
    );
}

#[test]
fn path_refuses_a_worktree_whose_folder_is_gone() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let path = sb.add(&repo, &["gone"]);
    std::fs::remove_dir_all(&path).unwrap();

    let err = sb.berth_err(&repo, &["path", "gone"]);

    let (first, hint) = error_lines(&err);
    assert!(
        first.starts_with("git berth: worktree 'gone' is missing"),
        "{err}"
    );
    assert!(hint.is_some_and(|h| h.contains("prune")), "{err}");
}

#[test]
fn list_counts_commits_ahead_in_a_worktree_made_with_an_existing_branch() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.git(&repo, &["branch", "topic"]);
    let path = sb.add(&repo, &["t", "--branch", "topic"]);
    sb.commit_file(&path, "work.txt", "w\n");

    let row = sb.list_row(&repo, "t");

    assert_eq!(row["ahead"], 1, "{row}");
}

#[test]
fn list_full_says_whether_each_worktrees_work_has_landed_on_the_trunk() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let squashed = sb.add(&repo, &["squashed"]);
    sb.commit_file(&squashed, "s.txt", "s\n");
    sb.git(&repo, &["merge", "-q", "--squash", "berth/squashed"]);
    sb.git(&repo, &["commit", "-q", "-m", "squashed work"]);
    let open = sb.add(&repo, &["open"]);
    sb.commit_file(&open, "o.txt", "o\n");

    let full = sb.berth_json(&repo, &["list", "--full", "--json"]);
    let plain = sb.berth_json(&repo, &["list", "--json"]);

    let merged = |listing: &serde_json::Value, name: &str| {
        listing["worktrees"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["name"] == name)
            .unwrap()["merged"]
            .clone()
    };
    assert_eq!(merged(&full, "squashed"), true);
    assert_eq!(merged(&full, "open"), false);
    assert!(
        merged(&plain, "open").is_null(),
        "only --full pays for the merge check"
    );
    let table = sb.berth_ok(&repo, &["list", "--full"]);
    assert!(table.lines().next().unwrap().contains("MERGED"), "{table}");
}

#[test]
fn list_into_a_closed_pipe_stops_quietly_as_git_does() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add(&repo, &["auth"]);
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);

    let out = sb
        .berth_command(&repo, &["list"])
        .stdout(std::process::Stdio::from(writer))
        .output()
        .unwrap();

    assert_eq!(common::stderr(&out), "", "nothing on stderr");
    assert_eq!(out.status.code(), Some(141), "128 + SIGPIPE, as git");
}

// ---- What a person sees on a terminal (issue 12, item 4) ----

/// Run berth with stdout on a new pseudo-terminal `columns` wide; the text it printed there, with
/// the terminal's `\r\n` read as `\n`.
fn on_terminal(
    sb: &Sandbox,
    dir: &Path,
    args: &[&str],
    columns: u16,
    env: &[(&str, &str)],
) -> String {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;

    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC).unwrap();
    grantpt(&master).unwrap();
    unlockpt(&master).unwrap();
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(rustix::fs::OFlags::NOCTTY.bits() as i32)
        .open(ptsname(&master, Vec::new()).unwrap().into_string().unwrap())
        .unwrap();
    let size = rustix::termios::Winsize {
        ws_row: 40,
        ws_col: columns,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    rustix::termios::tcsetwinsize(&slave, size).unwrap();
    let mut cmd = sb.berth_command(dir, args);
    cmd.env("TERM", "xterm-256color").env_remove("COLUMNS");
    for (key, value) in env {
        cmd.env(key, value);
    }
    let mut child = cmd
        .stdout(std::process::Stdio::from(slave))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The command keeps its copy of the terminal's other end: drop it, so that the child holds
    // the only one and reading stops (EIO) once it has exited.
    drop(cmd);
    let mut text = Vec::new();
    let _ = std::fs::File::from(master).read_to_end(&mut text);
    let status = child.wait().unwrap();
    assert!(
        status.success(),
        "git berth {args:?} on a terminal: {status}"
    );
    String::from_utf8(text).unwrap().replace("\r\n", "\n")
}

const UTF8: (&str, &str) = ("LC_ALL", "C.UTF-8");

/// `text` without its colour escapes.
fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find('m').expect("an escape ends in m");
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// A repository with a worktree whose path is long (a deep worktree base) and a commit in it.
fn long_paths(sb: &Sandbox) -> (std::path::PathBuf, std::path::PathBuf) {
    let repo = sb.repo("app");
    sb.git(
        &repo,
        &[
            "config",
            "berth.worktreeBase",
            "../a/folder/deep/enough/to/make/every/path/longer/than/any/terminal/is/wide",
        ],
    );
    let path = sb.add(&repo, &["login-form"]);
    sb.commit_file(&path, "login.txt", "l\n");
    sb.add(&repo, &["ui"]);
    (repo, path)
}

#[test]
fn list_on_a_terminal_fits_its_width_cutting_the_path_first_in_the_middle() {
    let sb = Sandbox::new();
    let (repo, path) = long_paths(&sb);
    let piped = sb.berth_ok(&repo, &["list"]);
    assert!(
        piped.lines().any(|l| l.chars().count() > 100),
        "the pipe gets it all: {piped}"
    );
    assert!(piped.contains(path.to_str().unwrap()), "{piped}");

    let wide = plain(&on_terminal(&sb, &repo, &["list"], 100, &[UTF8]));
    let narrow = plain(&on_terminal(&sb, &repo, &["list"], 80, &[UTF8]));

    for (columns, shown) in [(100, &wide), (80, &narrow)] {
        for line in shown.lines() {
            let width = line.chars().count();
            assert!(
                width <= columns,
                "{line:?} is wider than {columns}:\n{shown}"
            );
        }
    }
    let login = line_of(&wide, "login-form");
    let path = login.last().unwrap();
    assert!(path.contains('…'), "{wide}");
    assert!(path.ends_with("/login-form"), "the folder stays: {wide}");
    assert!(
        login.contains(&"berth/login-form") && login.contains(&"↑1"),
        "only the path had to give, and ahead/behind reads ↑1 ↓0: {wide}"
    );
    let login = line_of(&narrow, "login-form");
    assert_eq!(login[1..4], ["claimed", "by", "you"], "{narrow}");
    assert_eq!(
        login[4..6],
        ["berth/login-form", "main"],
        "then the base's commit goes, before any name is cut: {narrow}"
    );
}

#[test]
fn list_lines_up_the_columns_after_a_cjk_branch_name_by_the_columns_it_takes() {
    use unicode_width::UnicodeWidthStr as _;

    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.git(&repo, &["branch", "berth/認証-修正"]);
    sb.add(&repo, &["auth", "--branch", "berth/認証-修正"]);
    sb.add(&repo, &["fix"]);

    let shown = plain(&on_terminal(&sb, &repo, &["list"], 200, &[UTF8]));

    // Where the column after BRANCH starts on each line, in terminal columns: the header's BASE,
    // and each row's base (`master@...` or the branch it was checked out from).
    let starts: Vec<usize> = shown
        .lines()
        .map(|line| {
            let at = ["BASE", "  berth/認証-修正@", "  main@", "  master@"]
                .iter()
                .find_map(|word| {
                    line.find(word)
                        .map(|at| at + word.len() - word.trim_start().len())
                })
                .unwrap_or_else(|| panic!("no base in {line:?}:\n{shown}"));
            line[..at].width()
        })
        .collect();
    assert_eq!(starts.len(), 3, "{shown}");
    assert!(
        starts.iter().all(|&s| s == starts[0]),
        "{starts:?}:\n{shown}"
    );
}

/// The words of the table line of worktree `name` (cells are cut by characters, and the shared
/// `table_rows` cuts by bytes, which `↑` and `…` would shift).
fn line_of<'a>(table: &'a str, name: &str) -> Vec<&'a str> {
    table
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|words| words.first() == Some(&name))
        .unwrap_or_else(|| panic!("no line for {name}: {table}"))
}

#[test]
fn list_full_on_a_terminal_is_never_cut() {
    let sb = Sandbox::new();
    let (repo, path) = long_paths(&sb);

    let shown = plain(&on_terminal(&sb, &repo, &["list", "--full"], 80, &[UTF8]));

    assert!(shown.contains(path.to_str().unwrap()), "{shown}");
    assert!(shown.contains("change login.txt"), "{shown}");
    assert!(!shown.contains('…'), "{shown}");
}

#[test]
fn list_follows_the_columns_variable_as_git_does() {
    let sb = Sandbox::new();
    let (repo, _) = long_paths(&sb);

    let shown = plain(&on_terminal(
        &sb,
        &repo,
        &["list"],
        80,
        &[UTF8, ("COLUMNS", "100")],
    ));

    let widest = shown.lines().map(|l| l.chars().count()).max().unwrap();
    assert_eq!(widest, 100, "{shown}");
}

#[test]
fn list_without_a_utf8_locale_draws_plus_and_minus_and_three_dots() {
    let sb = Sandbox::new();
    let (repo, _) = long_paths(&sb);

    let shown = plain(&on_terminal(&sb, &repo, &["list"], 80, &[("LC_ALL", "C")]));

    let rows = common::table_rows(&shown);
    let login = &rows
        .iter()
        .find(|(_, r)| r["NAME"] == "login-form")
        .unwrap()
        .1;
    assert_eq!(login["AHEAD"], "+1 -0", "{shown}");
    assert!(login["PATH"].contains("..."), "{shown}");
    assert!(!shown.contains('…') && !shown.contains('↑'), "{shown}");
}

#[test]
fn list_colours_a_terminal_and_never_a_pipe() {
    let sb = Sandbox::new();
    let (repo, _) = long_paths(&sb);

    assert!(on_terminal(&sb, &repo, &["list"], 120, &[]).contains("\x1b["));
    assert!(!sb.berth_ok(&repo, &["list"]).contains('\x1b'));
}

#[test]
fn list_colour_follows_no_color_clicolor_force_and_gits_color_ui() {
    let sb = Sandbox::new();
    let (repo, _) = long_paths(&sb);
    let coloured = |text: &str| text.contains("\x1b[");
    let piped = |env: &[(&str, &str)]| {
        let mut cmd = sb.berth_command(&repo, &["list"]);
        cmd.envs(env.iter().copied());
        common::stdout(&cmd.output().unwrap())
    };

    assert!(!coloured(&on_terminal(
        &sb,
        &repo,
        &["list"],
        120,
        &[("NO_COLOR", "1")]
    )));
    assert!(
        !coloured(&on_terminal(
            &sb,
            &repo,
            &["list"],
            120,
            &[("TERM", "dumb")]
        )),
        "a dumb terminal, as git"
    );
    assert!(coloured(&piped(&[("CLICOLOR_FORCE", "1")])));
    assert!(!coloured(&piped(&[("CLICOLOR_FORCE", "0")])));
    assert!(
        !coloured(&piped(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")])),
        "NO_COLOR wins"
    );

    sb.git(&repo, &["config", "color.ui", "never"]);
    assert!(!coloured(&on_terminal(&sb, &repo, &["list"], 120, &[])));
    assert!(
        coloured(&piped(&[("GIT_CONFIG_PARAMETERS", "'color.ui'='always'")])),
        "git -c color.ui=always berth list"
    );
    sb.git(&repo, &["config", "color.ui", "always"]);
    assert!(coloured(&piped(&[])), "always colours a pipe too, as git");
    sb.git(&repo, &["config", "color.ui", "auto"]);
    assert!(coloured(&on_terminal(&sb, &repo, &["list"], 120, &[])));
    assert!(!coloured(&piped(&[])));
}

#[test]
fn list_in_gits_pager_is_fitted_and_coloured_as_git_colours_its_own() {
    let sb = Sandbox::new();
    let (repo, _) = long_paths(&sb);
    let mut cmd = sb.berth_command(&repo, &["list"]);
    cmd.env("GIT_PAGER_IN_USE", "true")
        .env("COLUMNS", "90")
        .env("TERM", "xterm");

    let shown = common::stdout(&cmd.output().unwrap());

    assert!(shown.contains("\x1b["), "{shown}");
    let widest = plain(&shown)
        .lines()
        .map(|l| l.chars().count())
        .max()
        .unwrap();
    assert!(widest <= 90, "{shown}");
}

#[test]
fn list_shows_why_a_claim_is_stale_and_says_you_for_your_own() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add(&repo, &["mine"]);
    let mut gone = common::Agent::spawn();
    let pid = gone.pid();
    let out = sb.berth_as(&repo, "s3", pid, &["add", "old"]);
    assert!(out.status.success(), "{}", common::outputs(&out));
    gone.kill();

    let table = sb.berth_ok(&repo, &["list"]);

    let rows = common::table_rows(&table);
    let status =
        |name: &str| rows.iter().find(|(_, r)| r["NAME"] == name).unwrap().1["STATUS"].clone();
    assert_eq!(
        status("old"),
        format!("stale (pid {pid} is gone)"),
        "{table}"
    );
    assert_eq!(status("mine"), "claimed by you", "{table}");
    assert_eq!(
        sb.list_row(&repo, "mine")["claimed_by"]
            .as_str()
            .map(|s| s.contains('@')),
        Some(true),
        "JSON keeps the session's id"
    );
}

#[test]
fn list_with_the_registry_gone_names_the_worktrees_it_hides_and_how_to_see_them() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    sb.add(&repo, &["auth"]);
    let by_hand = sb.root.join("by-hand");
    sb.worktree_by_hand(&repo, "by-hand", &by_hand);
    std::fs::remove_file(sb.registry_path(&repo)).unwrap();

    let out = sb.berth(&repo, &["list"]);
    assert!(out.status.success());
    assert_eq!(common::stdout(&out), "");
    let err = common::stderr(&out);
    assert!(err.contains("git has 2 linked worktrees"), "{err}");
    assert!(err.contains("auth") && err.contains("by-hand"), "{err}");
    assert!(err.contains("list --all"), "{err}");
    assert!(!err.contains("no worktrees yet"), "{err}");

    let all = sb.berth_ok(&repo, &["list", "--all"]);
    assert!(all.contains("auth") && all.contains("by-hand"), "{all}");

    let empty = sb.repo("empty");
    let err = common::stderr(&sb.berth(&empty, &["list"]));
    assert!(err.contains("no worktrees yet"), "{err}");
}
